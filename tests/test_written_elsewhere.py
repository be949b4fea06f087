"""Values given other than by a plain binding in the reading class or module: an
attribute made by `self.register_buffer("w", t)` or `setattr`, a slot filled by a
subclass or a loader (`layer.w = t`), a module global set through `globals()` or from
another module
(classes.py, class_writes.py, global_writes.py). Read from the plain
bindings alone, each was narrower than the truth: `self.w = None` in a release method
made `if self.w is None: return False` false everywhere."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.admission import EVERY, assert_can_be_true

ROCM = frozenset({"gfx90a", "gfx942", "gfx950"})
HEAD = "import torch\nIS_ROCM = torch.version.hip is not None\n"
# A class whose methods set `w` to None only; its `ready()` reads it.
SLOT = (
    "class Lin(torch.nn.Module):\n"
    "    def free(self):\n"
    "        self.w = None\n"
    "    def ready(self):\n"
    "        return self.w is not None\n"
)

CASES = [
    pytest.param(
        HEAD + "class Lin(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        '        self.register_buffer("w", torch.zeros(2))\n'
        "    def free(self):\n"
        "        self.w = None\n"
        "    def ready(self):\n"
        "        return self.w is not None\n",
        "IS_ROCM and Lin().ready()",
        ROCM,
        {},
        id="buffer-registered-then-released",
    ),
    pytest.param(
        HEAD + "class Base(torch.nn.Module):\n"
        "    def __init__(self, p):\n"
        '        self.register_parameter("w", p)\n' + SLOT.replace("(torch.nn.Module)", "(Base)"),
        "IS_ROCM and Lin().ready()",
        ROCM,
        {},
        id="parameter-registered-in-a-base",
    ),
    pytest.param(
        HEAD + "class Lin:\n"
        "    def __init__(self, name, v):\n"
        "        setattr(self, name, v)\n" + SLOT.split("\n", 1)[1],
        "IS_ROCM and Lin().ready()",
        ROCM,
        {},
        id="setattr-by-a-runtime-name",
    ),
    pytest.param(
        HEAD + "class Lin:\n"
        "    def __init__(self, **kw):\n"
        "        self.__dict__.update(kw)\n" + SLOT.split("\n", 1)[1],
        "IS_ROCM and Lin().ready()",
        ROCM,
        {},
        id="instance-dict-updated",
    ),
    pytest.param(
        HEAD + SLOT + "def load(layer, t):\n    layer.w = t\n",
        "IS_ROCM and Lin().ready()",
        ROCM,
        {},
        id="slot-filled-by-a-loader",
    ),
    pytest.param(
        HEAD + SLOT + "def load(layer, t):\n    setattr(layer, 'w', t)\n",
        "IS_ROCM and Lin().ready()",
        ROCM,
        {},
        id="slot-filled-by-setattr-elsewhere",
    ),
    pytest.param(
        HEAD + SLOT + "class Fast(Lin):\n    def __init__(self, t):\n        self.w = t\n",
        "IS_ROCM and Lin().ready()",
        ROCM,
        {},
        id="slot-filled-by-a-subclass",
    ),
    pytest.param(
        HEAD + "class Cfg:\n    KERNEL = None\ndef load(k):\n    setattr(Cfg, 'KERNEL', k)\n",
        "IS_ROCM and Cfg.KERNEL is not None",
        ROCM,
        {},
        id="class-attribute-set-by-setattr",
    ),
    pytest.param(
        HEAD + "KERNEL = None\ndef load(k):\n    globals()['KERNEL'] = k\n",
        "IS_ROCM and KERNEL is not None",
        ROCM,
        {},
        id="global-set-through-globals",
    ),
    pytest.param(
        HEAD + "KERNEL = None\ndef load(name, k):\n    globals()[name] = k\n",
        "KERNEL is not None",
        EVERY,
        {},
        id="globals-written-by-a-runtime-name",
    ),
    pytest.param(
        HEAD + "from pkg import state\n",
        "IS_ROCM and state.KERNEL is not None",
        ROCM,
        {
            "pkg.state": "KERNEL = None\n",
            "pkg.load": "from pkg import state\ndef load(k):\n    state.KERNEL = k\n",
        },
        id="global-set-from-another-module",
    ),
    # Noops: writes that cannot reach the value read keep it.
    pytest.param(
        HEAD + SLOT + "class Other:\n    def __init__(self, t):\n        self.w = t\n",
        "IS_ROCM and Lin().ready()",
        frozenset(),
        {},
        id="noop-same-name-on-an-unrelated-class",
    ),
    pytest.param(
        HEAD + "KERNEL = None\n",
        "IS_ROCM and KERNEL is not None",
        frozenset(),
        {"pkg.other": "KERNEL = 1\n"},
        id="noop-same-name-bound-in-another-module",
    ),
]


@pytest.mark.parametrize(("source", "expr", "admitted", "modules"), CASES)
def test_written_elsewhere(
    ruleset: RuleSet, source: str, expr: str, admitted: object, modules: dict[str, str]
) -> None:
    assert_can_be_true(ruleset, source, expr, admitted, modules=modules)
