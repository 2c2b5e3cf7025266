"""The read-only engine-graph designer: a TensorRT engine's layers on the model canvas (`dld.open_engine`)."""
