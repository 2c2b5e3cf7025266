"""The analysis widgets (seed 001 §4): Channel Inspector, Analysis Output and Model Inputs, each mirrored by a
module of js/src/widgets/analysis/ of the same name."""
