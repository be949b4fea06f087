"""`python -m gatecheck`. Python puts the working directory first on sys.path for -m: a
`click.py` or `yaml.py` in the folder being checked would be imported (and run) in place of
gatecheck's own dependencies. The folder is dropped before anything else is imported; the
pre-commit hook and the action call the `gatecheck` console script, which never adds it."""

import os
import sys

if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from gatecheck.cli import main

if __name__ == "__main__":
    main()
