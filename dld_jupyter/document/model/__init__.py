"""The document itself and its read-model: history, events, ids, names, views."""
