"""The Designer (toolbar + canvas + editor panels) that `dld.open` returns, and the profile panel it opens."""
