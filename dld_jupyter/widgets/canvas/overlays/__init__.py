"""Canvas overlays (js mirror: js/src/widgets/canvas/overlays/): what is drawn over a canvas's graph without changing
it (heat today; divergence, diff, breakpoints and values are to come). Each overlay registers itself with its canvas
(base.py); its messages travel as one `overlay` message kind, both ways."""
