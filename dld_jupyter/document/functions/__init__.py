"""Local functions: the function table, function documents, parameters and reference attributes."""
