"""The command line; each command lives in its own module, registers on `cli`, and is
imported only when it is run (see COMMAND_MODULES)."""

import contextlib
import os
import sys

from gatecheck.cli.common import cli


def main() -> None:
    try:
        cli(prog_name="gatecheck")
    except SystemExit as done:
        code = done.code
    else:
        code = 0
    # Everything is written (reports go through closed files, the cache through os.replace):
    # exit without tearing down the trees of a large run one object at a time (a second
    # on a big audit).
    if not (code is None or isinstance(code, int)):
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        # A closed pipe (`| head`) leaves nothing more to say.
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code or 0)


__all__ = ["cli", "main"]
