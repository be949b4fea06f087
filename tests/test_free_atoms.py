"""A condition Unknown on every generation still depends on the generation when, with
its unknown operands fixed alike, generations answer differently (free_atoms.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from gatecheck.audit import run_audit
from gatecheck.config.loader import load_ruleset
from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import admission_of
from gatecheck.semantics.call_names import MAX_CALLER_FILES

MakeTree = Callable[[Mapping[str, str]], Path]

PREDICATES = """
import os
import torch
flag = os.environ.get("USE_X") == "1"
other = os.environ.get("USE_Y") == "1"
def is_sm100():
    return torch.version.cuda is not None and float(torch.version.cuda) >= 12.8 and (
        torch.cuda.get_device_capability()[0] == 10)
def is_sm120():
    return float(torch.version.cuda) >= 12.8 and torch.cuda.get_device_capability()[0] == 12
use_fast = flag and not (is_sm100() or is_sm120())
aligned = flag and other and os.environ.get("A") == "1" and os.environ.get("B") == "1" and (
    os.environ.get("C") == "1")
"""

# (expr, whether it depends on the generation once its unknown operands are free)
CASES = [
    ("flag and not (is_sm100() or is_sm120())", True),
    ("use_fast", True),  # a name bound once to the same expression
    ("flag or is_sm120()", True),
    ("flag and other", False),
    ("flag", False),
    ("not flag", False),
    ("flag and (other or not other)", False),
    # Followed, `aligned` is five unknowns and the whole seven, past MAX_FREE_ATOMS: the
    # name is then one unknown of its own.
    ("aligned or is_sm120() or other", True),
]


@pytest.mark.parametrize(("expr", "depends"), CASES)
def test_depends_on_generation(ruleset: RuleSet, expr: str, depends: bool) -> None:
    admission = admission_of(PREDICATES, expr, ruleset.registry)
    every = ruleset.registry.all_names()
    assert admission.can_be_true == every and admission.can_be_false == every
    assert admission.depends_on_generation is depends


def test_dependence_is_per_generation_set(ruleset: RuleSet) -> None:
    admission = admission_of(PREDICATES, "flag and not is_sm120()", ruleset.registry)
    assert admission.depends_on(frozenset({"sm90", "sm120"}))
    assert not admission.depends_on(frozenset({"sm80", "sm90"}))
    assert not admission.depends_on(ruleset.registry.vendor_names("amd"))


@pytest.mark.parametrize(
    ("expr", "depends"),
    [
        ("is_cuda() and not is_sm120() and flag", True),
        ("is_cuda() and flag", False),
    ],
)
def test_unknown_on_one_vendor_is_enough(ruleset: RuleSet, expr: str, depends: bool) -> None:
    """False on AMD (no CUDA there) and Unknown on every NVIDIA generation: with the flag
    and the CUDA version fixed, sm120 answers apart from the other NVIDIA parts. Before,
    the analysis ran only where every generation was Unknown, and sglang 0.5.9's
    `is_cuda() and not is_sm120_supported() and fp4_quantize is not None` read as a
    vendor check."""
    source = PREDICATES + "def is_cuda():\n    return torch.version.cuda is not None\n"
    admission = admission_of(source, expr, ruleset.registry)
    nvidia = ruleset.registry.vendor_names("nvidia")
    assert admission.can_be_true == nvidia
    assert admission.depends_on(nvidia) is depends


def test_too_many_free_atoms_say_nothing(ruleset: RuleSet) -> None:
    names = [f"f{i}" for i in range(9)]
    source = "import os, torch\n" + "".join(f"{n} = os.environ.get('{n}')\n" for n in names)
    expr = (
        " and ".join(names[:-1])
        + f" and ({names[-1]} or torch.cuda.get_device_capability()[0] == 12)"
    )
    admission = admission_of(source, expr, ruleset.registry)
    assert admission.can_be_true == ruleset.registry.all_names()
    assert not admission.depends_on_generation


def _per_generation_sets(
    formula_src: str, per_atom: list[dict[str, object]]
) -> tuple[frozenset[str], ...]:
    """The definition, one generation at a time (what free_true_sets computes faster)."""
    import itertools

    from gatecheck.semantics.values import UNKNOWN

    generations = list(per_atom[0])
    free = [i for i, truths in enumerate(per_atom) if UNKNOWN in truths.values()]
    if not free:
        return ()  # decided everywhere: the three-valued answer says it all
    found: list[frozenset[str]] = []
    for choice in itertools.product((True, False), repeat=len(free)):
        fixed = dict(zip(free, choice, strict=True))
        true_on = set()
        for gen in generations:
            env = {
                f"a{i}": fixed[i] if truths[gen] is UNKNOWN else bool(truths[gen])
                for i, truths in enumerate(per_atom)
            }
            if eval(formula_src, {}, env):
                true_on.add(gen)
        if 0 < len(true_on) < len(generations) and frozenset(true_on) not in found:
            found.append(frozenset(true_on))
    return tuple(found)


@pytest.mark.parametrize("seed", range(40))
def test_free_true_sets_matches_the_per_generation_definition(seed: int) -> None:
    """Generations are grouped by their row of atom truths: the same sets, in the same
    order, as evaluating the formula for every generation."""
    import random
    import re

    import astroid

    from gatecheck.semantics.free_atoms import free_true_sets
    from gatecheck.semantics.values import UNKNOWN

    rng = random.Random(seed)
    formula_src = rng.choice(
        ["a0 and not (a1 or a2)", "a0 or a1", "(a0 and a1) or (not a2 and a3)", "not a0 and a1"]
    )
    node = astroid.extract_node(formula_src)
    atoms = sorted({int(n) for n in re.findall(r"\ba(\d+)\b", formula_src)})
    generations = [f"g{i}" for i in range(rng.randint(1, 8))]
    values = (True, False, UNKNOWN)
    per_atom = [{g: rng.choice(values) for g in generations} for _ in atoms]
    by_node = dict(zip([a.as_string() for a in _atoms_of(node)], per_atom, strict=True))
    got = free_true_sets(node, lambda leaf: by_node[leaf.as_string()])
    assert got == _per_generation_sets(formula_src, per_atom)


def _atoms_of(node: object) -> list[object]:
    from gatecheck.semantics.free_atoms import structure

    split = structure(node)  # type: ignore[arg-type]
    assert split is not None
    return list(split[1])


HARDWARE = """
import os
import torch
IS_NVIDIA = os.environ.get("PLATFORM") == "cuda"
IS_HOPPER = IS_NVIDIA and (
    "NVIDIA H" in torch.cuda.get_device_name(0) or torch.cuda.get_device_capability()[0] == 9
)
REBOUND = IS_NVIDIA and torch.cuda.get_device_capability()[0] == 9
def clear():
    global REBOUND
    REBOUND = False
"""


@pytest.mark.parametrize(
    ("source", "expr", "depends"),
    [
        pytest.param("from pkg.hardware import IS_HOPPER", "IS_HOPPER", True, id="imported-global"),
        pytest.param(
            "from pkg import hardware\nflag = hardware.IS_HOPPER",
            "flag",
            False,
            id="an-attribute-is-not-followed",
        ),
        pytest.param(
            "from pkg.hardware import REBOUND", "REBOUND", False, id="bound-twice-is-not-followed"
        ),
    ],
)
def test_a_global_imported_from_another_module_is_split_there(
    ruleset: RuleSet, source: str, expr: str, depends: bool
) -> None:
    """fla's `IS_NVIDIA_HOPPER` (a vendor test Unknown here, and a device-name test `or`
    a major) read in another module: the global is split where it is bound, so its uses
    depend on the generation as its definition does."""
    modules = {"pkg": "", "pkg.hardware": HARDWARE}
    admission = admission_of(source, expr, ruleset.registry, modules=modules)
    assert admission.depends_on_generation == depends


# An atom comparing the device's value with data nothing decides is one unknown per value
# the device gives (FlashInfer's build sidecars: `if arch not in built["arches"]: raise`).
DATA = """
import json
import os
import torch
ARCH_BY_CAP = {(10, 0): "sm_100a", (10, 3): "sm_103a", (12, 0): "sm_120a"}
arch = ARCH_BY_CAP.get(tuple(torch.cuda.get_device_capability()))
built = json.loads(os.environ["BUILT"])
major = torch.cuda.get_device_capability()[0]
"""


@pytest.mark.parametrize(
    ("expr", "depends"),
    [
        pytest.param('arch not in built["arches"]', True, id="the-arch-in-data"),
        pytest.param("major == built['major']", True, id="the-major-against-data"),
        pytest.param('flag and arch in built["arches"]', True, id="beside-another-unknown"),
        # Noops: no device value (data against data), one value on every generation.
        pytest.param('built["x"] in built["arches"]', False, id="noop-data-against-data"),
        pytest.param("torch.version.hip == built['hip']", False, id="noop-not-the-device"),
    ],
)
def test_the_device_against_data(ruleset: RuleSet, expr: str, depends: bool) -> None:
    source = DATA + 'flag = os.environ.get("USE_X") == "1"\n'
    admission = admission_of(source, expr, ruleset.registry)
    every = ruleset.registry.all_names()
    assert admission.can_be_true == every and admission.can_be_false == every
    assert admission.depends_on_generation is depends


# ... and where the device's value is a parameter read by its name (`arch: str` in a
# module spelling arch names, its callers too many to read: one of the arch name's
# spellings on each generation, conventions.ARCH_TEXT), the same: FlashInfer 0.7.4's
# `library_name(stage, arch)`, spelled in 59 files by as many modules' own functions.
SIDECAR = """import json

KNOWN = ("sm_100a", "sm_103a")


def library_name(stage: str, arch: str) -> str:
    rec = json.load(open("build.json"))
    if arch not in rec["arches"]:
        raise RuntimeError(stage)
    return stage + arch
"""


@pytest.mark.parametrize(
    ("callers", "listed"),
    [
        pytest.param(0, True, id="no-caller"),
        pytest.param(MAX_CALLER_FILES + 1, True, id="callers-past-the-search"),
    ],
)
def test_an_arch_parameter_against_data(make_tree: MakeTree, callers: int, listed: bool) -> None:
    files = {"pkg/__init__.py": "", "pkg/jit.py": SIDECAR}
    for i in range(callers):
        files[f"pkg/user_{i}.py"] = "def use(f, x):\n    return library_name('s', x)\n"
    report = run_audit([make_tree(files)], load_ruleset([]), "sm120")
    rows = [(g.found.line, len(g.admits)) for g in report.gates if g.path.name == "jit.py"]
    assert (rows == [(8, len(load_ruleset([]).registry.all_names()))]) is listed
