"""The audit also searches files that spell no arch idiom but use a name the semantics
found to carry the device (gatecheck/audit/widening.py): a project's own predicate, a
module attribute bound to one, a function answering by one. Refusals are noops with
their reason: a protocol's method name, a fast path's function, a function's local."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.audit import run_audit
from gatecheck.audit.prefilter import mentions_arch
from gatecheck.audit.widening import MAX_DEFINITIONS
from gatecheck.cli import cli
from gatecheck.config.loader import load_ruleset
from gatecheck.config.model import RuleSet
from gatecheck.reporting.audit_json import render_audit_json
from tests.conftest import write_tree
from tests.test_audit_workers import _workers_project, evaluated_in_this_process

MakeTree = Callable[[Mapping[str, str]], Path]

# Spells an idiom (`capability`): searched by the text prefilter alone.
UTILS = (
    "import torch\n\n\n"
    "def is_sm_at_least_89():\n"
    "    return torch.cuda.get_device_capability() >= (8, 9)\n"
)
SM89_UP = (
    "gfx90a",
    "gfx942",
    "gfx950",
    "sm100",
    "sm103",
    "sm110",
    "sm120",
    "sm121",
    "sm89",
    "sm90",
)


def rows(make_tree: MakeTree, files: Mapping[str, str]) -> list[tuple[str, int, tuple[str, ...]]]:
    """(file name, line, admitted generations) of every gate and hop outside utils.py."""
    tree = {"pkg/__init__.py": "", "pkg/utils.py": UTILS, **files}
    report = run_audit([make_tree(tree)], load_ruleset([]), "sm120")
    found = [
        (g.path.name, g.found.line, tuple(sorted(g.found.admission.can_be_true)))
        for g in report.gates
    ]
    found += [(h.path.name, h.line, ("hop",)) for h in report.hops]
    return sorted(r for r in found if r[0] != "utils.py")


CASES = [
    pytest.param(
        {
            "pkg/quant.py": "from pkg.utils import is_sm_at_least_89\n\n\n"
            "def quantize(x):\n"
            "    assert is_sm_at_least_89(), 'fp8 needs CUDA >= 8.9'\n"
            "    return x\n"
        },
        [("quant.py", 5, SM89_UP)],
        id="the-project-s-own-predicate",
    ),
    pytest.param(
        {
            "pkg/config.py": "from pkg.utils import is_sm_at_least_89\n\n"
            "USE_FP8 = is_sm_at_least_89()\n",
            "pkg/model.py": "from pkg import config\n\n\n"
            "def run(x):\n"
            "    if config.USE_FP8:\n"
            "        return x * 2\n"
            "    return x\n",
        },
        # config.py's `USE_FP8 = ...`: a device predicate's answer kept under a switch's
        # name (conditions.kept_answer); model.py's test of it stays a gate of its own
        [("config.py", 3, SM89_UP), ("model.py", 5, SM89_UP)],
        id="a-module-attribute-bound-to-it-a-round-later",
    ),
    pytest.param(
        {
            "pkg/pick.py": "from pkg.utils import is_sm_at_least_89\n\n\n"
            "def backend():\n"
            "    if is_sm_at_least_89():\n"
            "        return 'fast'\n"
            "    return 'slow'\n",
            "pkg/user.py": "from pkg.pick import backend\n\n\n"
            "def run(x):\n"
            "    if backend() == 'fast':\n"
            "        return x * 2\n"
            "    return x\n",
        },
        [("pick.py", 5, SM89_UP), ("user.py", 5, SM89_UP)],
        id="a-function-answering-by-it",
    ),
    pytest.param(
        {
            "pkg/layer.py": "from pkg.utils import is_sm_at_least_89\n\n\n"
            "class Layer:\n"
            "    def __init__(self):\n"
            "        self.use_fp8 = is_sm_at_least_89()\n\n"
            "    def run(self, x):\n"
            "        if self.use_fp8:\n"
            "            return x * 2\n"
            "        return x\n",
        },
        [("layer.py", 6, SM89_UP), ("layer.py", 9, SM89_UP)],
        id="an-attribute-set-on-the-object",
    ),
    pytest.param(
        {
            "pkg/quant.py": "from pkg.utils import (\n"
            "    is_sm_at_least_89 as fp8_ok,\n"
            ")\n\n"
            "ENABLED = [fp8_ok]\n\n\n"
            "def run(x):\n"
            "    return x * 2 if fp8_ok() else x\n"
        },
        [("quant.py", 9, SM89_UP)],
        id="a-line-of-a-parenthesised-import",
    ),
]


@pytest.mark.parametrize(("files", "expected"), CASES)
def test_files_using_a_name_that_carries_the_device_are_searched(
    make_tree: MakeTree, files: Mapping[str, str], expected: list[tuple[str, int, tuple[str, ...]]]
) -> None:
    assert not any(mentions_arch(text) for text in files.values()), "the prefilter alone"
    assert rows(make_tree, files) == expected


def test_a_flag_set_under_a_device_test_carries_the_device(make_tree: MakeTree) -> None:
    """lmdeploy's `flash_mla_available()`: a flag set True under `if major >= 9:` and
    returned; its value reads no device, its `if` does (widening._tests_around), so the
    files calling the function are searched."""
    avail = (
        "import torch\n\n\n"
        "def flash_mla_available():\n"
        "    use = False\n"
        "    props = torch.cuda.get_device_properties(0)\n"
        "    if props.major >= 9:\n"
        "        use = True\n"
        "    return use\n"
    )
    model = (
        "from pkg.avail import flash_mla_available\n\n\n"
        "def block_size():\n"
        "    if flash_mla_available():\n"
        "        return 64\n"
        "    return 16\n"
    )
    assert not mentions_arch(model)
    found = rows(make_tree, {"pkg/avail.py": avail, "pkg/model.py": model})
    assert ("model.py", 5, ("hop",)) in found  # passes the flag's row on


PROTOCOL = "".join(
    f"class Kernel{i}:\n    def forward(self, x):\n        return x + {i}\n\n\n"
    for i in range(MAX_DEFINITIONS)
)

NOOPS = [
    pytest.param(
        {
            "pkg/kernels.py": "from pkg.utils import is_sm_at_least_89\n\n\n"
            + PROTOCOL
            + "class Fp8Kernel:\n"
            "    def forward(self, x):\n"
            # No parameter read: a method's callers search would build user.py.
            "        return is_sm_at_least_89() and self.enabled\n",
            "pkg/user.py": "def run(kernel, x):\n    if kernel.forward(x):\n        return 1\n",
        },
        "forward",
        id="a-protocol-method-defined-over-and-over",
    ),
    pytest.param(
        {
            "pkg/layer.py": "from pkg.utils import is_sm_at_least_89\n\n\n"
            "def forward(x):\n"
            "    if is_sm_at_least_89():\n"
            "        return x.fast()\n"
            "    return x.slow()\n",
            "pkg/user.py": "from pkg.layer import forward\n\n\n"
            "def run(x):\n    if forward(x):\n        return 1\n",
        },
        "forward",
        id="a-fast-path-is-no-answer",
    ),
    pytest.param(
        {
            "pkg/layer.py": "from pkg.utils import is_sm_at_least_89\n\n\n"
            "def run(x):\n"
            "    use_fast = is_sm_at_least_89() and x\n"
            "    return 1 if use_fast else 0\n",
            "pkg/user.py": "def other(use_fast):\n    if use_fast:\n        return 1\n",
        },
        "use_fast",
        id="a-function-s-local-is-its-own",
    ),
]


@pytest.mark.parametrize(("files", "name"), NOOPS)
def test_noop_names_that_bring_in_no_file(
    make_tree: MakeTree, files: Mapping[str, str], name: str
) -> None:
    root = make_tree({"pkg/__init__.py": "", "pkg/utils.py": UTILS, **files})
    report = run_audit([root], load_ruleset([]), "sm120")
    assert name not in report.device_names
    assert all(g.path.name != "user.py" for g in report.gates)
    assert (root / "pkg" / "user.py") not in report.parsed


def test_a_protocols_name_is_reported_as_not_followed(make_tree: MakeTree) -> None:
    """The reason a protocol's method brings in no file is in the report: an audit of
    fewer files (impact's of BASE) may count it under the bound, and must not take it for
    a name the whole tree's audit missed."""
    files = NOOPS[0].values[0]
    assert isinstance(files, dict)
    root = make_tree({"pkg/__init__.py": "", "pkg/utils.py": UTILS, **files})
    report = run_audit([root], load_ruleset([]), "sm120")
    assert "forward" in report.protocol_names
    assert "forward" not in report.device_names


def test_noop_a_word_in_a_comment_or_a_message_is_no_use(make_tree: MakeTree) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/utils.py": UTILS,
        "pkg/kernel.py": "from pkg.utils import is_sm_at_least_89\n\n\n"
        "class Kernel:\n"
        "    @staticmethod\n"
        "    def support():\n"
        "        return is_sm_at_least_89() and True\n",
        "pkg/user.py": "# Most kernels support both layouts.\n"
        "def run(layout):\n"
        "    if layout == 'nt':\n"
        "        raise ValueError('we do not support nt here')\n",
    }
    root = make_tree(files)
    report = run_audit([root], load_ruleset([]), "sm120")
    assert "support" in report.device_names
    assert (root / "pkg" / "user.py") not in report.parsed


def test_a_file_that_comes_to_use_a_device_name_invalidates_the_cached_audit(
    make_tree: MakeTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_tree({"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/user.py": "X = 1\n"})
    monkeypatch.chdir(root)

    def audit(*args: str) -> str:
        result = CliRunner().invoke(cli, ["audit", ".", "--generation", "sm120", *args])
        assert result.exit_code == 0, result.output
        return result.output

    before = audit("--format", "json")
    (root / "pkg" / "user.py").write_text(
        "from pkg.utils import is_sm_at_least_89\n\nFAST = 1 if is_sm_at_least_89() else 0\n"
    )
    after = audit("--format", "json")
    assert after == audit("--format", "json", "--no-cache")
    assert "user.py" not in before
    assert "user.py" in after


def test_same_report_with_workers(tmp_path: Path, ruleset: RuleSet) -> None:
    """The rounds run in the main process after the workers: the same answer."""
    root = _workers_project(tmp_path / "tree", 32)
    for index in range(4):
        (root / "pkg" / f"user_{index}.py").write_text(
            f"from pkg.feature_{index} import _is_hopper_or_blackwell\n\n\n"
            "def run(x):\n    if _is_hopper_or_blackwell:\n        return x * 2\n    return x\n"
        )
    reports = {jobs: run_audit([root], ruleset, "sm120", jobs=jobs) for jobs in (1, 2)}
    one = render_audit_json(reports[1], root)
    assert one.count("user_") >= 4
    assert render_audit_json(reports[2], root) == one
    assert reports[2].device_names == reports[1].device_names
    assert reports[2].parsed == reports[1].parsed


def test_a_large_round_is_shared_with_workers(
    tmp_path: Path, ruleset: RuleSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A round with enough text for two processes (workers.plan) is taken from both ends
    by this process and a worker forked for it, which has every tree and memo built so
    far: the same report, and some of the round's modules never evaluated here."""
    from gatecheck.audit import workers

    root = _workers_project(tmp_path / "tree", 32)
    (root / "pkg" / "utils.py").write_text(UTILS)
    padding = "notes on the kernels. " * 12_000
    users = 8
    for index in range(users):
        text = (
            f'"""{padding}"""\nfrom pkg.utils import is_sm_at_least_89\n\n\n'
            f"def run_{index}(x):\n    if is_sm_at_least_89():\n        return x * 2\n"
            "    return x\n"
        )
        assert not mentions_arch(text)  # searched for the name it uses, not by the prefilter
        (root / "pkg" / f"user_{index}.py").write_text(text)
    weights = [len(padding)] * users
    assert workers.plan(weights, 2) == 2, "the round must be large enough"
    evaluated_here = evaluated_in_this_process(monkeypatch)
    one = run_audit([root], ruleset, "sm120", jobs=1)
    users_files = {f"user_{i}.py" for i in range(users)}
    assert users_files <= evaluated_here
    evaluated_here.clear()
    two = run_audit([root], ruleset, "sm120", jobs=2)
    assert render_audit_json(two, root) == render_audit_json(one, root)
    assert sum(g.path.name in users_files for g in one.gates + one.hops) >= users
    assert two.parsed == one.parsed
    assert two.diagnostics == one.diagnostics
    assert users_files - evaluated_here, "every module of the round was evaluated here"


def _many_definitions(root: Path, users: int) -> Path:
    """utils.py's predicate used by `users` files that spell no idiom, each defining a
    function and a constant made of it, each constant read by a file of its own, and
    files that use none of the names (scanned all the same)."""
    files = {"pkg/__init__.py": "", "pkg/utils.py": UTILS}
    for index in range(users):
        files[f"pkg/user_{index}.py"] = (
            "from pkg.utils import is_sm_at_least_89\n\n\n"
            f"def fast_{index}(x):\n    return is_sm_at_least_89() and x > 0\n\n\n"
            f"LEVEL_{index} = 2 if fast_{index}(1) else 1\n"
        )
        files[f"pkg/reader_{index}.py"] = (
            f"from pkg.user_{index} import LEVEL_{index}\n\n\n"
            f"def run(x):\n    if LEVEL_{index} > 1:\n        return x * 2\n    return x\n"
        )
        files[f"pkg/other_{index}.py"] = f"def other_{index}(x):\n    return x + {index}\n"
    return write_tree(root, files)


def test_a_rounds_definitions_and_scan_are_shared_with_workers(
    tmp_path: Path, ruleset: RuleSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Enough definitions to check (widening.WORKER_DEFINITIONS, lowered here) and
    enough text to scan (WORKER_CHARS) are shared with a worker forked for them: some
    of each never looked at here, the same report, and what a worker's checks diagnosed
    said in the single-process order (a diagnostic noted at every check, here)."""
    from gatecheck import forking
    from gatecheck.audit import widening
    from gatecheck.audit.widening import Widening
    from gatecheck.loading.project import FileDiagnostic

    if not forking.can_fork():
        pytest.skip("no os.fork on this system")
    root = _many_definitions(tmp_path / "tree", 24)
    parent = os.getpid()
    checked_here: list[str] = []
    scanned_here: list[str] = []
    varies, searched_for = Widening._varies, widening._searched_for

    def noting(self: Widening, definition: widening.Definition) -> bool:
        if os.getpid() == parent:
            checked_here.append(definition.name)
        where = Path(definition.values[0].root().file)
        note = FileDiagnostic(where, int(definition.values[0].lineno), 0, definition.name)
        self.project.diagnostics.append(note)
        return varies(self, definition)

    def scanning(text: str, words: object, quoted: object) -> bool:
        if os.getpid() == parent:
            scanned_here.append(text)
        time.sleep(0.002)  # a text takes long enough for the worker to claim some
        return searched_for(text, words, quoted)  # type: ignore[arg-type]

    monkeypatch.setattr(Widening, "_varies", noting)
    monkeypatch.setattr(widening, "_searched_for", scanning)
    one = run_audit([root], ruleset, "sm120", jobs=1)
    checked, scanned = len(checked_here), len(scanned_here)
    assert sum(d.message.startswith("LEVEL_") for d in one.diagnostics) == 24
    assert {f"reader_{i}.py" for i in range(24)} <= {g.path.name for g in one.gates}
    monkeypatch.setattr(widening, "WORKER_DEFINITIONS", 4)
    monkeypatch.setattr(widening, "WORKER_CHARS", 200)
    checked_here.clear()
    scanned_here.clear()
    two = run_audit([root], ruleset, "sm120", jobs=2)
    assert render_audit_json(two, root) == render_audit_json(one, root)
    assert two.diagnostics == one.diagnostics
    assert two.device_names == one.device_names
    assert two.parsed == one.parsed
    assert 0 < len(checked_here) < checked, "every definition was checked here"
    assert 0 < len(scanned_here) < scanned, "every text was scanned here"


# -- values: a name whose value (not only its truth) tells generations apart ---------------

# Spells an idiom: a helper answering the capability as a number, a constant holding the
# device's properties, a tag picked by the major, the AMD arch name (told apart within
# AMD) and values the same on every generation of each vendor (the SM count is not read;
# whether the build is ROCm's).
HARDWARE = (
    "import torch\n\n\n"
    "def device_cc():\n"
    "    major, minor = torch.cuda.get_device_capability()\n"
    "    return major * 10 + minor\n\n\n"
    "def speed_tag():\n"
    "    major, _ = torch.cuda.get_device_capability()\n"
    "    return {9: 'fast', 10: 'wide'}.get(major, 'slow')\n\n\n"
    "def cc_number():\n"
    "    cap = torch.cuda.get_device_capability()\n"
    "    text = f'{cap[0]}.{cap[1]}'\n"
    "    return float(text)\n\n\n"
    "def cc_logged():\n"
    "    cap = torch.cuda.get_device_capability()\n"
    "    text = f'{cap[0]}.{cap[1]}'\n"
    "    print(text)\n"
    "    return 1\n\n\n"
    "def smem_per_device():\n"
    "    try:\n"
    "        return [\n"
    "            torch.cuda.get_device_properties(i).shared_memory_per_block_optin\n"
    "            for i in range(torch.cuda.device_count())\n"
    "        ]\n"
    "    except RuntimeError:\n"
    "        return [-1]\n\n\n"
    "def smem_at_least(kind, index=0):\n"
    "    need = {'big': 200000, 'mid': 160000}.get(kind, 0)\n"
    "    return smem_per_device()[index] >= need\n\n\n"
    "def enough_sms(n):\n"
    "    return PROPS.multi_processor_count >= n\n\n\n"
    "PROPS = torch.cuda.get_device_properties(0)\n"
    "NUM_SMS = torch.cuda.get_device_properties(0).multi_processor_count\n"
    "ROCM_NAME = torch.cuda.get_device_properties(0).gcnArchName\n"
    "ON_ROCM = torch.version.hip is not None\n"
)
SM100_UP = ("sm100", "sm103", "sm110", "sm120", "sm121")
# Shared memory per block (opted in) of at least 200,000 / 160,000 bytes (the registry's).
SMEM_BIG = ("gfx90a", "gfx942", "gfx950", "sm100", "sm103", "sm110", "sm90")
SMEM_MID = ("gfx90a", "gfx942", "gfx950", "sm100", "sm103", "sm110", "sm80", "sm87", "sm90")


def value_rows(
    make_tree: MakeTree, files: Mapping[str, str]
) -> tuple[list[tuple[str, int, tuple[str, ...]]], list[str]]:
    """(file name, line, admitted generations) of every gate and hop outside hw.py, and
    the names of the files searched."""
    root = make_tree({"pkg/__init__.py": "", "pkg/hw.py": HARDWARE, **files})
    report = run_audit([root], load_ruleset([]), "sm120")
    found = [
        (g.path.name, g.found.line, tuple(sorted(g.found.admission.can_be_true)))
        for g in report.gates
    ]
    found += [(h.path.name, h.line, ("hop",)) for h in report.hops]
    return sorted(r for r in found if r[0] != "hw.py"), sorted(p.name for p in report.parsed)


VALUE_CASES = [
    pytest.param(
        {
            "pkg/user.py": "from pkg.hw import device_cc\n\n\n"
            "def threads():\n"
            "    if device_cc() == 90:\n"
            "        return 256\n"
            "    return 128\n"
        },
        [("user.py", 5, ("gfx90a", "sm90"))],
        id="a-helper-returning-a-number",
    ),
    pytest.param(
        # The capability carried through locals before it is returned (diffusers'
        # `float(f"{cc[0]}.{cc[1]}")` helper, its `>= 9.0` tests in other files).
        {
            "pkg/user.py": "from pkg.hw import cc_number\n\n\n"
            "def threads():\n"
            "    if cc_number() >= 10.0:\n"
            "        return 256\n"
            "    return 128\n"
        },
        [("user.py", 5, SM100_UP)],
        id="a-helper-returning-it-through-locals",
    ),
    pytest.param(
        {
            "pkg/consts.py": "from pkg.hw import device_cc\n\nCC = device_cc()\n",
            "pkg/user.py": "from pkg import consts\n\n\n"
            "def block():\n"
            "    return 64 if consts.CC >= 100 else 32\n",
        },
        [("user.py", 5, SM100_UP)],
        id="a-constant-holding-it-a-round-later",
    ),
    pytest.param(
        {
            "pkg/user.py": "from pkg.hw import speed_tag\n\n\n"
            "def run(x):\n"
            "    if speed_tag() == 'wide':\n"
            "        return x * 2\n"
            "    return x\n"
        },
        [("user.py", 5, ("sm100", "sm103"))],
        id="a-string-picked-by-the-major",
    ),
    pytest.param(
        {
            "pkg/user.py": "from pkg import hw\n\n\n"
            "def run(x):\n"
            "    if hw.PROPS.major >= 10:\n"
            "        return x * 2\n"
            "    return x\n"
        },
        [("user.py", 5, SM100_UP)],
        id="an-object-whose-attributes-differ",
    ),
    pytest.param(
        # Another vendor's generations told apart (gfx942 from the other AMD parts) on
        # an sm120 audit: a gate all the same, classed as another vendor's.
        {
            "pkg/user.py": "from pkg import hw\n\n\n"
            "def tiles():\n"
            "    if hw.ROCM_NAME[-2:] == '42':\n"
            "        return 2\n"
            "    return 1\n"
        },
        [("user.py", 5, ("gfx942",))],
        id="another-vendors-value",
    ),
    pytest.param(
        # A record made with the device in a field, read by the field's name in a file
        # that spells no idiom (flash-attn-4's heuristics inputs, `inputs.device_arch`).
        {
            "pkg/api.py": "from pkg import hw\nfrom pkg.plan import Inputs, stages\n\n\n"
            "def run(x, d):\n"
            "    return x * stages(Inputs(device_sm=hw.device_cc(), head_dim=d))\n",
            "pkg/plan.py": "from typing import NamedTuple\n\n\n"
            "class Inputs(NamedTuple):\n"
            "    device_sm: int\n"
            "    head_dim: int\n\n\n"
            "def stages(inputs):\n"
            "    if inputs.device_sm in (100, 103):\n"
            "        return 2\n"
            "    return 1\n",
        },
        [("plan.py", 10, ("sm100", "sm103"))],
        id="a-record-field-given-the-device",
    ),
    pytest.param(
        # A list with an item per device (FLA's `get_all_max_shared_mem()`).
        {
            "pkg/user.py": "from pkg.hw import smem_per_device\n\n\n"
            "def stages():\n"
            "    if smem_per_device()[0] >= 200000:\n"
            "        return 4\n"
            "    return 2\n"
        },
        [("user.py", 5, SMEM_BIG)],
        id="a-sequence-with-an-item-per-device",
    ),
    pytest.param(
        # A predicate answering by the device once a call names what it asks for
        # (FLA's `check_shared_mem("ampere")`): read alone it is unknown, a caller
        # passing its own parameter on; each call is read with its own arguments.
        {
            "pkg/user.py": "from pkg.hw import smem_at_least\n\n\n"
            "def stages(kind):\n"
            "    if smem_at_least('mid'):\n"
            "        return 4\n"
            "    return 2 if smem_at_least(kind) else 1\n"
        },
        [("user.py", 5, SMEM_MID)],
        id="a-predicate-answering-by-its-argument",
    ),
]


@pytest.mark.parametrize(("files", "expected"), VALUE_CASES)
def test_files_using_a_name_whose_value_varies_are_searched(
    make_tree: MakeTree, files: Mapping[str, str], expected: list[tuple[str, int, tuple[str, ...]]]
) -> None:
    assert not any(mentions_arch(text) for text in files.values()), "the prefilter alone"
    assert value_rows(make_tree, files)[0] == expected


def test_a_record_field_given_a_local_carrying_the_device(make_tree: MakeTree) -> None:
    """The field's value read off the device through locals (`hi, lo = ...; Inputs(
    device_sm=hi * 10 + lo)`), the record read in a file that spells no idiom."""
    files = {
        "pkg/api.py": "import torch\nfrom pkg.plan import Inputs, stages\n\n\n"
        "def run(x, d):\n"
        "    hi, lo = torch.cuda.get_device_capability()\n"
        "    return x * stages(Inputs(device_sm=hi * 10 + lo, head_dim=d))\n",
        "pkg/plan.py": "from dataclasses import dataclass\n\n\n"
        "@dataclass\nclass Inputs:\n"
        "    device_sm: int\n"
        "    head_dim: int\n\n\n"
        "def stages(inputs):\n"
        "    return 2 if inputs.device_sm // 10 == 12 else 1\n",
    }
    rows_found, searched = value_rows(make_tree, files)
    assert ("plan.py", 11, ("sm120", "sm121")) in rows_found
    assert "plan.py" in searched


VALUE_NOOPS = [
    pytest.param(
        "def grid(n):\n    return min(n, hw.NUM_SMS)\n",
        id="a-value-not-read-is-the-same-everywhere",
    ),
    pytest.param(
        "def workers():\n    return 4 * hw.cc_logged()\n",
        id="a-local-carrying-it-not-returned",
    ),
    pytest.param(
        "def rocm():\n    return hw.ON_ROCM\n",
        id="a-value-that-differs-only-between-vendors",
    ),
    pytest.param(
        "def launch(k):\n    return k(num_sms=hw.NUM_SMS, blocks=4)\n",
        id="a-keyword-given-a-value-the-same-everywhere",
    ),
]


@pytest.mark.parametrize("user", VALUE_NOOPS)
def test_noop_values_the_same_on_every_generation_of_the_vendor(
    make_tree: MakeTree, user: str
) -> None:
    text = "from pkg import hw\n\n\n" + user
    assert not mentions_arch(text)
    rows_found, searched = value_rows(make_tree, {"pkg/user.py": text})
    assert rows_found == []
    assert "user.py" not in searched


def test_noop_an_argument_compared_with_a_value_the_same_everywhere(make_tree: MakeTree) -> None:
    """A function comparing its parameter with a device's value the generation does not
    decide (the SM count of an object whose other attributes it does) answers alike on
    every generation whatever a call passes: its name carries nothing (the callers search
    still reads the calling file)."""
    user = "from pkg import hw\n\n\ndef fits(k):\n    return 2 if hw.enough_sms(k) else 1\n"
    assert not mentions_arch(user)
    root = make_tree({"pkg/__init__.py": "", "pkg/hw.py": HARDWARE, "pkg/user.py": user})
    report = run_audit([root], load_ruleset([]), "sm120")
    assert "smem_at_least" in report.device_names  # the same rounds do find the other
    assert "enough_sms" not in report.device_names
    assert all(g.path.name != "user.py" for g in report.gates)
