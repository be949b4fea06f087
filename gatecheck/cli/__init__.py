"""The command line; each command lives in its own module and registers on `cli`."""

from gatecheck.cli import audit as _audit  # noqa: F401  (registers the command)
from gatecheck.cli import check as _check  # noqa: F401  (registers the command)
from gatecheck.cli import config_cmd as _config_cmd  # noqa: F401  (registers the command)
from gatecheck.cli import explain as _explain  # noqa: F401
from gatecheck.cli import rules_cmd as _rules_cmd  # noqa: F401  (registers the command)
from gatecheck.cli.common import cli


def main() -> None:
    cli(prog_name="gatecheck")


__all__ = ["cli", "main"]
