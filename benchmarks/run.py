"""gatecheck's performance figures (issue #7), every one a ratio measured in this one run.

    python benchmarks/run.py                     # everything (a few minutes)
    python benchmarks/run.py --quick             # no semgrep, no 10x scaling check
    python benchmarks/run.py --semgrep PATH      # use this semgrep binary

Downloads the pinned corpus once (sglang 0.5.9 from PyPI, into .cache/corpus/ like the
tests), copies its .py files into a temporary folder (the run's project root, so that its
cache is the one the cold steps clear), then measures, each step in a fresh process
(benchmarks/_timed.py):

- plain `ast.parse` of every file (the yardstick), cold `check` and cold `audit` (empty
  cache), warm ones (cache, nothing changed): seconds inside the process, interpreter start
  and imports excluded (both are printed too, with the wall time);
- semgrep running the equivalent single rule (benchmarks/semgrep_rule.yaml), installed
  into benchmarks/.semgrep-venv with pip when it is not on PATH; wall time against
  gatecheck's wall time (both include their start-up);
- one changed file as pre-commit passes it (`gatecheck check --files-scope FILE` in a git
  copy of the corpus): wall time, for a file gatecheck never parses and for one it does;
- peak RSS of each step (the largest of its runs);
- a synthetic tree 10x larger (the corpus copied under ten package names): time(10x) /
  time(1x) for check and audit;
- the largest engines (sglang 0.5.23, vllm 0.33.0; `--large`, `--skip-large`): yardstick,
  cold check and cold audit in the same rounds (`--large-repeat`, default 1).
- `gatecheck impact HEAD` in a git copy of the corpus with one gate edited -- in a model
  file, and in a hub module much of the tree imports -- against one cold audit taken in
  the same rounds (`--skip-impact` leaves it out, `--only-impact` measures nothing else).

Each step runs `--repeat` times (default 3; twice for the scaling check) and the fastest
run counts: on a shared machine the minimum is the figure least disturbed by other work.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scripts.corpus import CorpusUnavailable, fetch  # noqa: E402

TIMED = Path(__file__).resolve().parent / "_timed.py"
SEMGREP_RULE = Path(__file__).resolve().parent / "semgrep_rule.yaml"
SEMGREP_VENV = Path(__file__).resolve().parent / ".semgrep-venv"
PINNED = "sglang==0.5.9"
# The largest engines, measured beside the pinned corpus (#20): yardstick, cold check and
# cold audit, each ratio against the yardstick taken in the same rounds.
LARGE = ("sglang==0.5.23", "vllm==0.33.0")


@dataclass
class Step:
    seconds: float  # inside the process
    wall: float  # the whole process, start-up included
    imports: float
    max_rss_mb: float
    exit: object = None
    workers_rss_mb: float = 0.0  # the largest worker process's peak (audit --jobs)


def child_env() -> dict[str, str]:
    """The measured processes' environment: this checkout on the path, and bytecode
    cached as after `pip install` (a PYTHONDONTWRITEBYTECODE=1 in the caller's
    environment would make every run compile gatecheck's sources again, 0.1 s of wall)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(REPO)
    return env


def corpus(requirement: str) -> Path:
    """Download and unpack a wheel once (the tests' corpus_package, without pytest)."""
    try:
        return fetch(requirement)
    except CorpusUnavailable as err:
        raise SystemExit(str(err)) from err


def private_copy(root: Path, target: Path) -> Path:
    """The corpus's .py files copied under `target` (a folder in no git work tree): the
    run's project root, so its .gatecheck_cache/ is the one `clear` empties. Run on the
    shared .cache/corpus/ tree, the cache would be the enclosing checkout's, which the
    cold steps never cleared (they measured warm runs)."""
    for path in root.rglob("*.py"):
        out = target / path.relative_to(root)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, out)
    return target


def timed(args: Sequence[str], cwd: Path, repeat: int, prepare: object = None) -> Step:
    """The fastest of `repeat` fresh processes running benchmarks/_timed.py."""
    return timed_rounds([(args, prepare)], cwd, repeat)[0]


def timed_rounds(
    steps: Sequence[tuple[Sequence[str], object]], cwd: Path, repeat: int
) -> list[Step]:
    """Each step's fastest of `repeat` runs, the steps taking turns (one round runs every
    step once): a machine that slows down or speeds up mid-run then weighs on a ratio's
    two sides alike, instead of on whichever step ran during the slow minute. The peak
    RSS is the largest of the runs (a bound to stay under, not a speed)."""
    best: list[Step | None] = [None] * len(steps)
    peak = [0.0] * len(steps)
    workers_peak = [0.0] * len(steps)
    for _ in range(repeat):
        for index, (args, prepare) in enumerate(steps):
            if callable(prepare):
                prepare()
            step = _run_once(args, cwd)
            peak[index] = max(peak[index], step.max_rss_mb)
            workers_peak[index] = max(workers_peak[index], step.workers_rss_mb)
            current = best[index]
            if current is None or step.seconds < current.seconds:
                best[index] = step
    return [
        dataclasses.replace(step, max_rss_mb=rss, workers_rss_mb=workers)
        for step, rss, workers in zip(best, peak, workers_peak, strict=True)
        if step is not None
    ]


def _run_once(args: Sequence[str], cwd: Path) -> Step:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(TIMED), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=child_env(),
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"step failed: {' '.join(args)}\n{done.stderr}")
    data = json.loads(done.stdout.strip().splitlines()[-1])
    if data.get("exit") not in (None, 0, 1):  # 1: findings; anything else did not measure
        raise SystemExit(f"step exited {data.get('exit')}: {' '.join(args)}\n{done.stderr}")
    return Step(
        float(data["seconds"]),
        wall,
        float(data.get("imports", 0.0)),
        float(data["max_rss_mb"]),
        data.get("exit"),
        float(data.get("workers_max_rss_mb", 0.0)),
    )


# -- semgrep ------------------------------------------------------------------------------


def find_semgrep(given: str | None) -> tuple[Path | None, str]:
    if given:
        return Path(given), "given"
    on_path = shutil.which("semgrep")
    if on_path:
        return Path(on_path), "on PATH"
    binary = SEMGREP_VENV / "bin" / "semgrep"
    if binary.exists():
        return binary, "benchmarks/.semgrep-venv"
    try:
        subprocess.run([sys.executable, "-m", "venv", str(SEMGREP_VENV)], check=True)
        subprocess.run(
            [str(SEMGREP_VENV / "bin" / "python"), "-m", "pip", "install", "-q", "semgrep"],
            check=True,
            capture_output=True,
            text=True,
            timeout=900,
        )
    except (subprocess.SubprocessError, OSError) as err:
        detail = getattr(err, "stderr", "") or str(err)
        return None, f"cannot install semgrep: {detail.strip().splitlines()[-1:]}"
    return (
        (binary, "installed into benchmarks/.semgrep-venv")
        if binary.exists()
        else (
            None,
            "semgrep installed but no binary found",
        )
    )


def semgrep_step(binary: Path, root: Path, cwd: Path) -> tuple[float, str]:
    """One semgrep run: its wall time and what it found."""
    command = [
        str(binary),
        "scan",
        "--config",
        str(SEMGREP_RULE),
        "--metrics=off",
        "--disable-version-check",
        "--no-git-ignore",
        "--json",
        str(root),
    ]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    try:
        results = json.loads(done.stdout)["results"]
        found = ", ".join(
            f"{Path(r['path']).relative_to(root).as_posix()}:{r['start']['line']}" for r in results
        )
    except (ValueError, KeyError):
        found = f"(no JSON: {done.stderr.strip()[-200:]})"
    return seconds, found


# -- the synthetic 10x tree ---------------------------------------------------------------


def replicate(source: Path, target: Path, copies: int) -> None:
    """`copies` self-contained copies of the corpus package, each renamed (imports too)."""
    for index in range(copies):
        name = f"sglang_{index}"
        word = re.compile(r"\bsglang\b")
        for path in (source / "sglang").rglob("*.py"):
            rel = path.relative_to(source / "sglang")
            out = target / name / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(word.sub(name, path.read_text(encoding="utf-8")).encode("utf-8"))


# -- the run ------------------------------------------------------------------------------


def machine() -> list[str]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = []
    for package in ("gatecheck", "astroid"):
        try:
            from importlib.metadata import version

            versions.append(f"{package} {version(package)}")
        except Exception:
            versions.append(f"{package} ?")
    return [
        f"cpu: {cpu}, {os.cpu_count()} cores; {platform.system()} {platform.release()}",
        f"python {platform.python_version()} ({sys.executable}); " + ", ".join(versions),
    ]


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else "n/a"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default=PINNED)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--semgrep", help="a semgrep binary to use")
    parser.add_argument("--skip-semgrep", action="store_true")
    parser.add_argument("--skip-scaling", action="store_true")
    parser.add_argument(
        "--large",
        action="append",
        help=f"a large corpus to measure too (repeatable; default {', '.join(LARGE)})",
    )
    parser.add_argument("--skip-large", action="store_true")
    parser.add_argument("--skip-impact", action="store_true")
    parser.add_argument("--only-impact", action="store_true", help="the impact figures alone")
    parser.add_argument("--large-repeat", type=int, default=1, help="rounds per large corpus")
    parser.add_argument(
        "--quick", action="store_true", help="--skip-semgrep --skip-scaling --skip-large"
    )
    options = parser.parse_args()
    root = corpus(options.corpus)
    repeat = options.repeat
    lines = [f"gatecheck benchmarks on {options.corpus} ({root})", *machine()]
    work = Path(tempfile.mkdtemp(prefix="gatecheck-bench-"))
    # Bytecode in place before the first measured run (see child_env).
    compileall = [sys.executable, "-m", "compileall", "-q", str(REPO / "gatecheck")]
    subprocess.run(compileall, env=child_env(), check=False)
    try:
        if options.only_impact:
            print(
                "\n".join(
                    [*lines, *impact_lines(private_copy(root, work / "corpus"), work, repeat)]
                )
            )
            return
        lines += measure(private_copy(root, work / "corpus"), work, repeat, options)
        if not (options.skip_large or options.quick):
            for requirement in options.large or LARGE:
                lines += large_lines(requirement, work, options.large_repeat)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("\n".join(lines))


def measure(root: Path, work: Path, repeat: int, options: argparse.Namespace) -> list[str]:
    out: list[str] = []
    audit_args = ["audit", str(root), "--generation", "sm120", "--format", "json"]
    check_args = ["check", str(root), "--format", "json"]

    def clear(folder: Path) -> object:
        return lambda: shutil.rmtree(folder / ".gatecheck_cache", ignore_errors=True)

    parse, cold_check, warm_check, cold_audit, warm_audit, one_process = timed_rounds(
        [
            (["ast-parse", str(root)], None),
            (["gatecheck", *check_args], clear(work)),
            (["gatecheck", *check_args], None),  # the entry the cold run just wrote
            (["gatecheck", *audit_args], clear(work)),  # default --jobs: one per core
            (["gatecheck", *audit_args], None),
            (["gatecheck", *audit_args, "--jobs", "1"], clear(work)),
        ],
        work,
        repeat,
    )
    out += [
        "",
        "in-process seconds (interpreter start and imports excluded; fastest of "
        f"{repeat} rounds, each running every step once), wall seconds, peak RSS:",
        f"  ast.parse of every file     {parse.seconds:7.2f} s   wall {parse.wall:6.2f} s"
        f"   {parse.max_rss_mb:5.0f} MB",
    ]
    for label, step in [
        ("check, cold (no cache)", cold_check),
        ("check, warm (cache)", warm_check),
        ("audit, cold (no cache)", cold_audit),
        ("audit, warm (cache)", warm_audit),
        ("audit, cold, --jobs 1", one_process),
    ]:
        out.append(
            f"  {label:<27} {step.seconds:7.2f} s   wall {step.wall:6.2f} s"
            f"   {step.max_rss_mb:5.0f} MB   (imports {step.imports:.2f} s){_workers(step)}"
        )
    out += [
        "",
        "ratios (target):",
        f"  cold check / ast.parse      {ratio(cold_check.seconds, parse.seconds):>8}   (<= 0.15x)",
        f"  cold audit / ast.parse      {ratio(cold_audit.seconds, parse.seconds):>8}   (<= 1.0x)",
        f"  cold audit, --jobs 1 / default {ratio(one_process.seconds, cold_audit.seconds):>5}",
        f"  warm check / cold check     {ratio(warm_check.seconds, cold_check.seconds):>8}"
        "   (<= 0.1x)",
        f"  warm audit / cold audit     {ratio(warm_audit.seconds, cold_audit.seconds):>8}"
        "   (<= 0.1x)",
        f"  peak RSS, check / audit     {cold_check.max_rss_mb:.0f} MB / "
        f"{cold_audit.max_rss_mb:.0f} MB   (< 250 MB){_workers(cold_audit)}",
    ]
    out += semgrep_lines(root, work, repeat, options)
    out += precommit_lines(root, work, repeat)
    if not (options.skip_scaling or options.quick):
        out += scaling_lines(root, work)
    if not options.skip_impact:
        out += impact_lines(root, work, repeat)
    return out


def large_lines(requirement: str, work: Path, repeat: int) -> list[str]:
    """A large engine: the yardstick, cold check and cold audit in the same rounds."""
    try:
        source = fetch(requirement, only_python=True)
    except CorpusUnavailable as err:
        return ["", f"{requirement}: skipped ({err})"]
    folder = work / requirement.replace("==", "-")
    root = private_copy(source, folder)
    files = sum(1 for _ in root.rglob("*.py"))

    def clear() -> None:
        shutil.rmtree(folder / ".gatecheck_cache", ignore_errors=True)

    parse, cold_check, cold_audit = timed_rounds(
        [
            (["ast-parse", str(root)], None),
            (["gatecheck", "check", str(root), "--format", "json"], clear),
            (["gatecheck", "audit", str(root), "--generation", "sm120", "--format", "json"], clear),
        ],
        folder,
        repeat,
    )
    out = ["", f"{requirement} ({files} files; fastest of {repeat} rounds):"]
    out.append(
        f"  ast.parse of every file     {parse.seconds:7.2f} s   wall {parse.wall:6.2f} s"
        f"   {parse.max_rss_mb:5.0f} MB"
    )
    for label, step, target in [
        ("check, cold (no cache)", cold_check, "<= 0.15x"),
        ("audit, cold (no cache)", cold_audit, "<= 1.0x"),
    ]:
        out.append(
            f"  {label:<27} {step.seconds:7.2f} s   wall {step.wall:6.2f} s"
            f"   {step.max_rss_mb:5.0f} MB   {ratio(step.seconds, parse.seconds):>7} of ast.parse"
            f" ({target}; RSS < 250 MB){_workers(step)}"
        )
    return out


def _workers(step: Step) -> str:
    return f"; a worker's peak {step.workers_rss_mb:.0f} MB" if step.workers_rss_mb else ""


def semgrep_lines(root: Path, work: Path, repeat: int, options: argparse.Namespace) -> list[str]:
    """semgrep and gatecheck's cold check taking turns, `repeat` rounds (at least 3): the
    fastest wall of each. Measured apart from the other steps' rounds, they would weigh a
    minute of a busy machine on one side of the ratio only."""
    if options.skip_semgrep or options.quick:
        return ["", "semgrep: skipped (--skip-semgrep)"]
    binary, how = find_semgrep(options.semgrep)
    if binary is None:
        return ["", f"semgrep: skipped ({how})"]
    version = subprocess.run([str(binary), "--version"], capture_output=True, text=True)
    rounds = max(repeat, 3)
    semgrep, found = float("inf"), ""
    check: Step | None = None
    for _ in range(rounds):
        seconds, found = semgrep_step(binary, root, work)
        semgrep = min(semgrep, seconds)
        shutil.rmtree(work / ".gatecheck_cache", ignore_errors=True)
        step = _run_once(["gatecheck", "check", str(root), "--format", "json"], work)
        if check is None or step.wall < check.wall:
            check = step
    assert check is not None
    return [
        "",
        f"semgrep {version.stdout.strip()} ({how}), the equivalent single rule, wall "
        f"(fastest of {rounds} rounds, each running semgrep then a cold check):",
        f"  semgrep                     {semgrep:7.2f} s   finds {found}",
        f"  gatecheck check, cold       {check.wall:7.2f} s   ({check.seconds:.2f} s in-process)",
        f"  semgrep / gatecheck (wall)  {ratio(semgrep, check.wall):>8}   (>= 8x)",
        f"  semgrep / gatecheck (in-process) {ratio(semgrep, check.seconds):>8}",
    ]


def precommit_lines(root: Path, work: Path, repeat: int) -> list[str]:
    """A git copy of the corpus; pre-commit runs `gatecheck check --files-scope FILE`."""
    repo = work / "precommit"
    shutil.copytree(root / "sglang", repo / "sglang")
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "corpus"], cwd=repo, check=True)
    command = [sys.executable, "-m", "gatecheck", "check", "--files-scope"]
    env_path = child_env()
    srt = repo / "sglang" / "srt"
    # A benchmark script nothing the check reads imports. (srt/utils/hf_transformers_utils.py
    # was the case until 4df06de: the check reads it since, following model_config.py's
    # keywords passed on, so an edit of it re-analyses the project, rightly.)
    cases = [
        ("a file gatecheck never parses", repo / "sglang" / "bench_serving.py"),
        ("a file it parses (re-analysed)", srt / "layers" / "communicator.py"),
    ]
    out = ["", "one changed file, as pre-commit passes it (wall, interpreter start included):"]
    for label, changed in cases:
        if not changed.exists():
            out.append(f"  {label}: {changed.name} not in this corpus, skipped")
            continue
        rel = str(changed.relative_to(repo))
        subprocess.run([*command, rel], cwd=repo, capture_output=True, env=env_path)  # warm
        best = float("inf")
        for edit in range(repeat):
            with changed.open("a", encoding="utf-8") as handle:
                handle.write(f"# edited {edit}\n")
            started = time.perf_counter()
            subprocess.run([*command, rel], cwd=repo, capture_output=True, env=env_path)
            best = min(best, time.perf_counter() - started)
        target = "   (< 0.3 s)" if "never" in label else ""
        out.append(f"  {label:<32} {best:6.2f} s{target}   ({rel})")
    return out


def scaling_lines(root: Path, work: Path) -> list[str]:
    one, ten = work / "x1", work / "x10"
    replicate(root, one, 1)
    replicate(root, ten, 10)
    out = ["", "scaling: the corpus copied under 1 and 10 package names (in-process, best of 2):"]
    # Concise reports: in the copies one feature has ten times the gates, and each JSON
    # finding carries the feature's whole activation path (n findings x n hops).
    commands = [
        ["check", "--format", "concise"],
        ["audit", "--generation", "sm120", "--format", "json"],
    ]
    for command in commands:
        small, large = timed_rounds(
            [
                (["gatecheck", command[0], str(tree), *command[1:], "--no-cache"], None)
                for tree in (one, ten)
            ],
            work,
            2,
        )
        out.append(
            f"  {command[0]:<6} 1x {small.seconds:6.2f} s  10x {large.seconds:7.2f} s   "
            f"time(10x)/time(1x) = {large.seconds / small.seconds:5.2f}  (linear: <= 10)   "
            f"peak RSS {small.max_rss_mb:.0f} / {large.max_rss_mb:.0f} MB"
        )
    return out


# The gates edited for `impact` (sglang 0.5.9): in a model file few modules import, and in
# a hub module (quantization/fp8.py, which 952 of the 1,404 files import, directly or
# not): the cutlass FP8 MoE assert loses sm90.
IMPACT_EDITS = (
    (
        "model file",
        "sglang/srt/models/glm4_moe_lite.py",
        'torch.cuda.get_device_capability("cuda") < (8, 0)',
        'torch.cuda.get_device_capability("cuda") < (9, 0)',
    ),
    (
        "hub module",
        "sglang/srt/layers/quantization/fp8.py",
        "assert is_sm100_supported() or is_sm90_supported()",
        "assert is_sm100_supported()",
    ),
)


def impact_lines(root: Path, work: Path, repeat: int) -> list[str]:
    """`impact HEAD` on a git copy of the corpus with one gate edited (uncommitted): each
    edit of IMPACT_EDITS cold (--no-cache: BASE exported and audited afresh), the hub
    edit also warm (BASE and both audits kept by the run before), all
    against one cold one-process audit (`--jobs 1`: impact runs in one process) of the
    same tree taken in the same rounds (acceptance: well under 2x). Seconds are the
    step's own wall clock: two processes count once."""
    repo = work / "impact"
    shutil.copytree(root / "sglang", repo / "sglang")
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "corpus"], cwd=repo, check=True)
    originals = {rel: (repo / rel).read_text(encoding="utf-8") for _, rel, _, _ in IMPACT_EDITS}
    for label, rel, old, _new in IMPACT_EDITS:
        if old not in originals[rel]:
            return ["", f"impact: the {label} gate is not in this corpus ({rel}), skipped"]

    def edited(index: int) -> Callable[[], None]:
        def apply() -> None:
            _label, edited_rel, old, new = IMPACT_EDITS[index]
            for rel, text in originals.items():
                wanted = text.replace(old, new, 1) if rel == edited_rel else text
                if (repo / rel).read_text(encoding="utf-8") != wanted:  # a warm cache stays
                    (repo / rel).write_text(wanted, encoding="utf-8")

        return apply

    impact_args = ["gatecheck", "impact", "HEAD", "--format", "json", "--allow-narrowing"]
    audit_args = ["gatecheck", "audit", ".", "--generation", "sm120", "--format", "json"]
    hub = len(IMPACT_EDITS) - 1
    edited(hub)()
    warm_up = [sys.executable, str(TIMED), *impact_args]
    subprocess.run(warm_up, cwd=repo, env=child_env(), capture_output=True, check=False)
    # impact audits in one process (its read log does not cross processes): against the
    # one-process audit, so the ratio is the work's, not the cores'.
    one_process = [*audit_args, "--no-cache", "--jobs", "1"]
    steps: list[tuple[Sequence[str], object]] = [(one_process, None)]
    steps += [([*impact_args, "--no-cache"], edited(i)) for i in range(len(IMPACT_EDITS))]
    steps += [(impact_args, edited(hub))]  # BASE and both audits kept by the run before
    cold_audit, *cold, kept_impact = timed_rounds(steps, repo, repeat)
    out = [
        "",
        f"impact: one gate edited, `impact HEAD` (in-process, best of {repeat}; load "
        f"{os.getloadavg()[0]:.1f} at the end):",
        f"  audit, cold (no cache, --jobs 1) {cold_audit.seconds:7.2f} s",
    ]
    for index, ((label, rel, _old, new), step) in enumerate(zip(IMPACT_EDITS, cold, strict=True)):
        edited(index)()
        done = subprocess.run(
            [sys.executable, "-m", "gatecheck", *impact_args[1:], "--no-cache"],
            cwd=repo,
            capture_output=True,
            text=True,
            env=child_env(),
        )
        report = json.loads(done.stdout)
        counts = ", ".join(f"{n} {kind}" for kind, n in report["counts"].items() if n)
        out += [
            f"  impact, cold, {label:<12}       {step.seconds:7.2f} s   "
            f"impact / cold audit {ratio(step.seconds, cold_audit.seconds):>6}"
            "   (target: well under 2x)",
            f"    {rel}: `{new}`; {report['compared_files']} of {report['project_files']} "
            f"files compared; reported: {counts or 'nothing'}",
        ]
    out += [
        f"  impact, warm (cache), hub        {kept_impact.seconds:7.2f} s   "
        f"impact / cold audit {ratio(kept_impact.seconds, cold_audit.seconds):>6}",
    ]
    return out


if __name__ == "__main__":
    main()
