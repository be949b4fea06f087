"""The command line; each command lives in its own module, registers on `cli`, and is
imported only when it is run (see COMMAND_MODULES)."""

import contextlib
import errno
import os
import sys

from gatecheck.cli.collector import few_collections
from gatecheck.loading.brainless import skip_brains

skip_brains()  # before anything imports astroid (loading/brainless.py)

# The command line's own imports (click, settings, rules) with few collector passes, as a
# command then runs (GatecheckGroup.main); the thresholds are restored once imported.
with few_collections():
    from gatecheck.cli.common import cli


def main() -> None:
    try:
        cli(prog_name="gatecheck")
    except SystemExit as done:
        code = done.code
    except OSError as err:  # writing --help or --version, before any command runs
        _say(f"gatecheck: cannot write report: <stdout>: {err.strerror or err}")
        code = 2
    else:
        code = 0
    # Everything is written (reports go through closed files, the cache through os.replace):
    # exit without tearing down the trees of a large run one object at a time (a second
    # on a big audit).
    if not (code is None or isinstance(code, int)):
        print(code, file=sys.stderr)
        code = 1
    try:
        sys.stdout.flush()
    except OSError as err:
        # A closed pipe (`| head`) leaves nothing more to say; a full disk loses the report.
        if err.errno != errno.EPIPE:
            _say(f"gatecheck: cannot write report: <stdout>: {err.strerror or err}")
            code = 2
    except ValueError:
        pass
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(code or 0)


def _say(line: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        print(line, file=sys.stderr)


__all__ = ["cli", "main"]
