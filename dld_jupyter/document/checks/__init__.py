"""The type check list: onnx.checker, shape inference, structure, data sizes, Polygraphy lint."""
