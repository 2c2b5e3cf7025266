"""Subgraphs (If/Loop/Scan bodies) and child documents: opening, contracts, write-back, locks."""
