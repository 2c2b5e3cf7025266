"""What every front door (notebook widgets, the JupyterLab sidebar, the CLI) shares, so that none imports another:
the registry of open designers, the registry of user operations, the live runs (`runs`) and the kernel-loop
helpers; the request/reply envelope they speak is `formats.envelope`, plain data every layer may read. Nothing
here imports a front door, and nothing here needs Jupyter.
"""
