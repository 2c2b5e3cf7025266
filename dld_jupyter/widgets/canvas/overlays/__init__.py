"""Canvas overlays (js mirror: js/src/widgets/canvas/overlays/): what is drawn over a canvas's graph without changing
it: heat, divergence, diff, node data and the analysis's Network Overview. Each overlay registers itself with its
canvas (base.py); its messages travel as one `overlay` message kind, both ways. The overlay strip (strip.py) lists
the active ones and says which one owns the node colours."""
