"""File formats shared by layers that must not import one another: pure codecs, standard library only.

`trt_metadata` is how TensorRT attributes are stored in an ONNX file: the document writes it (and imports
onnx-ir), the activity worker reads it on a GPU host that has no onnx-ir, so the codec can live in neither.
`output_paths` is the one rule set for paths about to be written (no output replaces an input), used by the
activities, every `dld` verb and the panels.
`html_text` is where text becomes HTML (names and paths escaped), for the notebook widgets, the JupyterLab tabs
and the report's HTML export alike.
`atomic_write` is the one writer that replaces a file atomically (a model, a report, user tools, settings).
`node_names` is how unnamed nodes are named (Model Explorer's rule): on opening, and by the activity worker that
profiles or analyses a file, which has no onnx-ir.
"""
