"""The command line imports its own modules (click, settings, rules) with the garbage
collector's thresholds raised, as a command then runs (tests/test_cli_collections.py),
and leaves them as it found them. Checked in a fresh interpreter: a finder on
sys.meta_path records the thresholds in force when click is imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROBE = """\
import gc, json, sys

seen = []


class Spy:
    def find_spec(self, name, path=None, target=None):
        if name == "click":
            seen.append(gc.get_threshold())
        return None


gc.set_threshold(700, 10, 10)
sys.meta_path.insert(0, Spy())
import gatecheck.cli

print(json.dumps({"during": seen, "after": gc.get_threshold()}))
"""


def test_the_command_line_imports_with_few_collections() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen == {"during": [[50_000, 20, 100]], "after": [700, 10, 10]}
