"""Reading and writing model files: lazy weights, external data, atomic saves, inputs from .npy."""
