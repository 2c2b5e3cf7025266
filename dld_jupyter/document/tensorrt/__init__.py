"""The TensorRT attributes a model carries: optimization profiles, the inferred batch size."""
