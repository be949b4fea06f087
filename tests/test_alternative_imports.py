"""A name bound by alternative imports, a compatibility shim (semantics/idioms/
alternative_imports.py): one of the imported objects, read through another module too,
and the shapes that stay unknown. (source, expr, admitted, modules) tables against the
pure entry point; in memory."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import admission_of
from gatecheck.semantics.logic import either
from gatecheck.semantics.values import UNKNOWN, ExternalRef, OneOf

EVERY = "every"
TARGET = "arch = cutlass.base_dsl.BaseDSL._get_dsl().get_arch_enum()\n"
# The DSL's target is unknown below sm80 and on AMD; Thor (sm_101a or sm_110a) is past
# sm_90 either way.
BEFORE_HOPPER = frozenset(
    {"sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "gfx90a", "gfx942", "gfx950"}
)
HOPPER_OR_AMD = frozenset({"sm90", "gfx90a", "gfx942", "gfx950"})


def shim(body: str, fallback: str) -> str:
    return f"try:\n    {body}\nexcept ImportError:\n    {fallback}\n"


ARCH_SHIM = shim("from cutlass.base_dsl import Arch", "from cutlass.base_dsl.arch import Arch")
LIB = {
    "pkg.lib": "import torch\n"
    "def is_hopper():\n"
    "    return torch.cuda.get_device_capability()[0] == 9\n",
    "pkg.compat": "import enum\nclass Arch(enum.Enum):\n    sm_80 = 80\n    sm_90 = 90\n",
}

CASES = [
    pytest.param(
        "import cutlass\nfrom pkg.shim import Arch\n" + TARGET,
        "arch < Arch.sm_90",
        BEFORE_HOPPER,
        {"pkg.shim": ARCH_SHIM},
        id="shim-module-imported-from",
    ),
    pytest.param(
        "import cutlass\nfrom pkg import shim\n" + TARGET,
        "arch < shim.Arch.sm_90",
        BEFORE_HOPPER,
        {"pkg.shim": ARCH_SHIM},
        id="shim-module-attribute",
    ),
    pytest.param(
        "import cutlass\n"
        + shim("import cutlass.base_dsl as dsl", "import cutlass as dsl")
        + TARGET,
        "dsl.Arch.sm_100 <= arch < dsl.Arch.sm_120",
        frozenset({"sm70", "sm75", "sm100", "sm103", "sm110", "gfx90a", "gfx942", "gfx950"}),
        {},
        id="module-alias-pair-chained-compare",
    ),
    pytest.param(
        shim("from pkg.lib import is_hopper", "from extlib import is_hopper"),
        "is_hopper()",
        HOPPER_OR_AMD,  # the body's answer; the outside name's convention agrees on NVIDIA
        LIB,
        id="project-or-outside-function",
    ),
    pytest.param(
        "import torch\n" + shim("import torch.cuda as tc", "import devicecompat as tc"),
        "tc.get_device_properties(0).major >= 9",
        HOPPER_OR_AMD | {"sm100", "sm103", "sm110", "sm120", "sm121"},
        {},
        # torch's properties, or the outside module's by the name's convention (assumed)
        id="module-alias-pair-torch-or-outside",
    ),
]

NOOPS = [
    pytest.param(
        shim("import ext_a as m", "import ext_b as m"),
        "getattr(m, 'is_sm90_supported', None)()",
        {},
        id="getattr-default-of-either-module",  # either module may lack it: the default
    ),
    pytest.param(
        "import cutlass\n"
        + shim("from cutlass import Arch", "from pkg.compat import Arch")
        + TARGET,
        "arch < Arch.sm_90",
        LIB,
        id="outside-enum-or-project-enum",  # members of two enums: no common value
    ),
    pytest.param(
        "import cutlass\nfrom pkg.shim import Arch\n" + TARGET,
        "arch < Arch.sm_90",
        {"pkg.shim": shim("from cutlass.base_dsl import Arch", "Arch = None")},
        id="shim-module-with-none-fallback",  # None is no reference
    ),
]


@pytest.mark.parametrize(("source", "expr", "admitted", "modules"), CASES)
def test_alternative_imports(
    ruleset: RuleSet, source: str, expr: str, admitted: frozenset[str], modules: dict[str, str]
) -> None:
    admission = admission_of(source, expr, ruleset.registry, modules={**LIB, **modules})
    assert admission.can_be_true == admitted


@pytest.mark.parametrize(("source", "expr", "modules"), NOOPS)
def test_alternative_imports_noop(
    ruleset: RuleSet, source: str, expr: str, modules: dict[str, str]
) -> None:
    admission = admission_of(source, expr, ruleset.registry, modules={**LIB, **modules})
    every = ruleset.registry.all_names()
    assert (admission.can_be_true, admission.can_be_false) == (every, every)


def test_either_keeps_outside_names_only_when_asked() -> None:
    """Two names from outside the project meet as unknown (`torch.bfloat16 if x else
    torch.float16`), unless they are what a name's imports bound; None is never one."""
    a, b = ExternalRef("cutlass.base_dsl.Arch"), ExternalRef("cutlass.base_dsl.arch.Arch")
    assert either([a, b]) is UNKNOWN
    found = either([a, b], outside=True)
    assert isinstance(found, OneOf) and found.options == (a, b)
    assert either([a, ExternalRef(a.dotted)], outside=True) == a  # one name: no choice
    assert either([a, None], outside=True) is UNKNOWN
