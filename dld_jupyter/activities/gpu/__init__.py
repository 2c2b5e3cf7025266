"""GPU side of profiling through NVML (pynvml, imported lazily): device info, metrics, clock locking."""
