"""Where nodes go: the layered layout, saved positions, the outline of a big model's first view."""
