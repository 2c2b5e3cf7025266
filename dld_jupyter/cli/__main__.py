import sys

from dld_jupyter.cli.main import main

sys.exit(main())
