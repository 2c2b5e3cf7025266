"""Analysis mode (seed 001 §4): the model run on real inputs, layer by layer, with breakpoints, stepping, tensor
inspection in bounded memory and runtime overrides. `inputs` turns files and arrays into input tensors;
`engine` runs prefixes of the model (`kinds/analysis.py` serves it from the activity worker)."""
