"""Stand-ins for vendor libraries, for tests only.

Each fake is a module object driven by a recorded table (call -> value or error); a test
installs one with `monkeypatch.setitem(sys.modules, "pynvml", fake)` so that the real
`collect_*` function runs against it.
"""
