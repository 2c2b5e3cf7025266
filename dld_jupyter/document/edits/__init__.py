"""Edits of a model: commands (the reversible steps that mutate it) and the edits that validate and issue them."""
