"""How SARIF (which plans and verifies a fix for every failing gate) scales with the
number of failing gates in one file: time(10 x N gates) / time(N gates), each a fresh
process (benchmarks/_timed.py), the fastest of --repeat. Linear is 10; verifying each fix
by its own re-analysis of the project made it about 100 (issue #15, item 13).

    python benchmarks/fix_scaling.py [--gates 100] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TIMED = HERE / "_timed.py"
sys.path.insert(0, str(HERE.parent))

from tests.conftest import FAST_THING_RULE  # noqa: E402
from tests.test_paths_once import gates  # noqa: E402


def _tree(work: Path, count: int) -> tuple[Path, Path]:
    root = work / f"gates-{count}"
    (root / "proj").mkdir(parents=True)
    (root / "proj" / "args.py").write_text(gates(count), encoding="utf-8")
    (root / "rules.yaml").write_text(FAST_THING_RULE, encoding="utf-8")
    return root / "proj", root / "rules.yaml"


def _seconds(project: Path, rules: Path, repeat: int) -> float:
    args = ["check", str(project), "--rules", str(rules), "--format", "sarif", "--no-cache"]
    best = float("inf")
    for _ in range(repeat):
        done = subprocess.run(
            [sys.executable, str(TIMED), "gatecheck", *args],
            capture_output=True,
            text=True,
            check=True,
        )
        best = min(best, float(json.loads(done.stdout.splitlines()[-1])["seconds"]))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gates", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=1)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        small = _seconds(*_tree(work, options.gates), options.repeat)
        large = _seconds(*_tree(work, options.gates * 10), options.repeat)
    print(f"SARIF with fixes, {options.gates} failing gates in one file: {small:.1f} s")
    print(f"SARIF with fixes, {options.gates * 10} failing gates in one file: {large:.1f} s")
    print(f"ratio (10x gates): {large / small:.1f} (linear: 10)")


if __name__ == "__main__":
    main()
