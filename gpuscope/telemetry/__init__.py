"""Live telemetry: a sampler thread, preallocated ring buffers, a crash-safe recorder."""
