"""The Qt-free services between the views and the domain: what the window, the CLI and the
report share (gathering a report's inputs, the live session)."""
