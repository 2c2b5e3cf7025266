"""What every front door (notebook widgets, the JupyterLab sidebar, the CLI) shares, so that none imports another:
the registry of open designers, the registry of user operations, the request/reply/error envelope and the
kernel-loop helpers. Nothing here imports a front door, and nothing here needs Jupyter.
"""
