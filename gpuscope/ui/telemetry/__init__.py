"""The Telemetry page: live or recorded charts, strips, the overview and the process list."""
