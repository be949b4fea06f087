"""The command line; each command lives in its own module, registers on `cli`, and is
imported only when it is run (see COMMAND_MODULES)."""

from gatecheck.cli.common import cli


def main() -> None:
    cli(prog_name="gatecheck")


__all__ = ["cli", "main"]
