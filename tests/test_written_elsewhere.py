"""Values given other than by a plain binding in the reading class or module: an
attribute made by `self.register_buffer("w", t)` or `setattr`, a slot filled by a
subclass or a loader (`layer.w = t`), a module global set through `globals()` or from
another module, a container filled through an import or an alias
(classes.py, class_writes.py, global_writes.py, mutations.py). Read from the plain
bindings alone, each was narrower than the truth: `self.w = None` in a release method
made `if self.w is None: return False` false everywhere."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import Semantics, in_memory_project
from gatecheck.semantics.mutations import changing_names
from tests.admission import EVERY, assert_can_be_true
from tests.conftest import write_tree

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
    pytest.param(
        HEAD + "from pkg.state import ENTRIES\n",
        "IS_ROCM and len(ENTRIES) > 0",
        ROCM,
        {
            "pkg.state": "ENTRIES = []\n",
            "pkg.reg": "from pkg.state import ENTRIES as E\nE.append(print)\n",
        },
        id="list-filled-through-an-import",
    ),
    pytest.param(
        HEAD + "from pkg.state import TABLE\n",
        "IS_ROCM and len(TABLE) > 0",
        ROCM,
        {
            "pkg.state": "TABLE = {}\n",
            "pkg.reg": "from pkg import state\nstate.TABLE['fp8'] = print\n",
        },
        id="dict-filled-through-its-module",
    ),
    pytest.param(
        HEAD + "ENTRIES = []\nACTIVE = ENTRIES\nACTIVE.append(print)\n",
        "IS_ROCM and len(ENTRIES) > 0",
        ROCM,
        {},
        id="list-filled-through-an-alias",
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
        HEAD + "class Lin:\n"
        "    def __init__(self):\n"
        "        self.fast = IS_ROCM\n"
        "    def memo(self, wide):\n"
        "        key = '_wide' if wide else '_narrow'\n"
        "        found = self.__dict__.get(key)\n"
        "        self.__dict__[key] = found\n",
        "Lin().fast",
        ROCM,
        {},
        id="noop-instance-dict-written-under-other-constant-names",
    ),
    pytest.param(
        HEAD + "class Lin:\n"
        "    def __init__(self):\n"
        "        self.fast = IS_ROCM\n"
        "        for name in ('a', 'b'):\n"
        "            setattr(self, name, None)\n",
        "Lin().fast",
        ROCM,
        {},
        id="noop-setattr-over-other-constant-names",
    ),
    pytest.param(
        HEAD + "import os\n"
        "class Base:\n"
        "    def __init__(self):\n"
        "        self.fast = os.environ.get('FAST')\n"
        "class Lin(Base):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fast = IS_ROCM\n"
        "    def ready(self):\n"
        "        return self.fast\n",
        "Lin().ready()",
        ROCM,
        {},
        id="noop-base-init-value-set-anew-after-it",
    ),
    pytest.param(
        HEAD + "KERNEL = None\n",
        "IS_ROCM and KERNEL is not None",
        frozenset(),
        {"pkg.other": "KERNEL = 1\n"},
        id="noop-same-name-bound-in-another-module",
    ),
    pytest.param(
        HEAD + "from pkg.state import ENTRIES\n",
        "IS_ROCM and len(ENTRIES) > 0",
        frozenset(),
        {
            "pkg.state": "ENTRIES = []\n",
            "pkg.other": "ENTRIES = []\nENTRIES.append(print)\n",
        },
        id="noop-another-modules-own-list",
    ),
    pytest.param(
        HEAD + "class Reg:\n    def __init__(self):\n        self.items = []\nR = Reg()\n",
        "IS_ROCM and len(R.items) > 0",
        ROCM,
        {"pkg.reg": "import gate\nr = gate.R\nr.\\\n    items.append(print)\n"},
        # The files an attribute's change is looked for in must spell `.items`
        # (mutations._spells_attribute): also across a line continuation.
        id="attribute-appended-to-in-another-module-across-a-continuation",
    ),
]


@pytest.mark.parametrize(("source", "expr", "admitted", "modules"), CASES)
def test_written_elsewhere(
    ruleset: RuleSet, source: str, expr: str, admitted: object, modules: dict[str, str]
) -> None:
    assert_can_be_true(ruleset, source, expr, admitted, modules=modules)


# Containers filled by their own scope's statements (mutations.grown, filled_at_import).
FP8_UP = frozenset({"sm89", "sm90", "sm100", "sm103", "sm110", "sm120", "sm121"}) | ROCM
BELOW_FP8 = frozenset({"sm70", "sm75", "sm80", "sm86", "sm87"})
CAP = "import torch\nmajor, minor = torch.cuda.get_device_capability()\n"
CHECK = (
    "import torch\n"
    "def fp8_ok():\n"
    "    return torch.cuda.get_device_capability(0) >= (8, 9)\n"
    "def check_a(m):\n"
    "    if not fp8_ok():\n"
    "        return False\n"
    "    return m.ready\n"
)

FILLED = [
    pytest.param(
        "import torch\n"
        "def dtypes(cap):\n"
        "    major, minor = cap\n"
        "    s = {torch.float16}\n"
        "    if major >= 9 or (major, minor) == (8, 9):\n"
        "        s.add(torch.float8_e4m3fn)\n"
        "    return frozenset(s)\n",
        "torch.float8_e4m3fn not in dtypes(torch.cuda.get_device_capability())",
        BELOW_FP8,
        {},
        id="local-set-added-to-under-a-capability-test",
    ),
    pytest.param(
        "import torch\n"
        "def table():\n"
        "    d = {}\n"
        "    if torch.cuda.get_device_capability()[0] >= 9:\n"
        "        d['fp8'] = True\n"
        "    return d\n",
        "'fp8' in table()",
        frozenset({"sm90", "sm100", "sm103", "sm110", "sm120", "sm121"}) | ROCM,
        {},
        id="local-dict-item-stored-under-a-capability-test",
    ),
    pytest.param(
        CAP + "SUPPORTED = {torch.float16}\n"
        "if major >= 9 or (major, minor) == (8, 9):\n"
        "    SUPPORTED.add(torch.float8_e4m3fn)\n",
        "torch.float8_e4m3fn in SUPPORTED",
        FP8_UP,
        {},
        id="module-set-added-to-under-a-capability-test",
    ),
    pytest.param(
        CHECK + "ENTRIES = []\nENTRIES.append(check_a)\n",
        "any(c(m) for c in ENTRIES)",
        FP8_UP,
        {},
        id="module-registry-appended-to",
    ),
    pytest.param(
        CHECK + "ENTRIES = []\nENTRIES.extend([check_a])\n",
        "ENTRIES[0](m)",
        FP8_UP,
        {},
        id="module-registry-extended",
    ),
    pytest.param(
        "import torch\ndef f():\n    s = [1]\n    t = s\n    s.append(2)\n    return 2 in t\n",
        "torch.version.hip is not None and f()",
        ROCM,
        {},
        id="local-list-changed-through-another-name",
    ),
    # Noops: fills the walk cannot follow stay unknown.
    pytest.param(
        "import torch\n"
        "def dtypes(flag):\n"
        "    s = {torch.float16}\n"
        "    if flag:\n"
        "        s.add(torch.float8_e4m3fn)\n"
        "    return s\n",
        "torch.float8_e4m3fn in dtypes(x)",
        EVERY,
        {},
        id="noop-local-set-added-to-under-an-unknown-test",
    ),
    pytest.param(
        CHECK + "import os\nENTRIES = []\nif os.environ.get('X'):\n    ENTRIES.append(check_a)\n",
        "len(ENTRIES) > 0 and torch.version.hip is not None",
        ROCM,
        {},
        id="noop-module-list-appended-to-under-an-unknown-test",
    ),
    pytest.param(
        CHECK + "ENTRIES = []\ndef register(f):\n    ENTRIES.append(f)\n",
        "len(ENTRIES) > 0 and torch.version.hip is not None",
        ROCM,
        {},
        id="noop-module-list-appended-to-in-a-function",
    ),
    pytest.param(
        CHECK + "ENTRIES = []\nfor f in (check_a,):\n    ENTRIES.append(f)\n",
        "len(ENTRIES) > 0 and torch.version.hip is not None",
        ROCM,
        {},
        id="noop-module-list-appended-to-in-a-loop",
    ),
    pytest.param(
        CHECK + "ENTRIES = []\nSEEN = len(ENTRIES) == 0\nENTRIES.append(check_a)\n",
        "SEEN and fp8_ok()",
        FP8_UP,
        {},
        id="noop-module-read-before-the-append",
    ),
    pytest.param(
        CHECK + "ENTRIES = []\nENTRIES.append(check_a)\n",
        "len(ENTRIES) > 1 and torch.version.hip is not None",
        ROCM,
        {"pkg.more": "from gate import ENTRIES\nENTRIES.append(print)\n"},
        id="noop-module-list-appended-to-from-another-module",
    ),
]


@pytest.mark.parametrize(("source", "expr", "admitted", "modules"), FILLED)
def test_filled_in_place(
    ruleset: RuleSet, source: str, expr: str, admitted: object, modules: dict[str, str]
) -> None:
    assert_can_be_true(ruleset, source, expr, admitted, modules=modules)


# The forward pattern mutations.changing_names replaces, searched for one name at a time
# (what changed_elsewhere searched each file's text for before the index).
def _spelled_changing(text: str, name: str) -> bool:
    return re.search(rf"\b{re.escape(name)}(?:\s*(?:[\[.]|[-+|&^*]=)|\s+as\b)", text) is not None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ENTRIES.append(f)", {"ENTRIES"}),
        ("state.TABLE[k] = v", {"state", "TABLE"}),
        ("TOTAL += 1\nMASK |= 2", {"TOTAL", "MASK"}),
        ("from .state import ENTRIES as active", {"from", "ENTRIES"}),
        ("x as as", {"x", "as"}),  # `as` read as a name too: nothing is skipped
        ("ENTRIES == []", set()),
        ("_ENTRIES . pop()", {"_ENTRIES"}),
        ("ENTRIES\n[0]", {"ENTRIES"}),
        ("Xas y", set()),  # `as` inside a word
        ("x **= 2", set()),
        ("é.x", {"é"}),
        ("1.5", {"1"}),
    ],
)
def test_changing_names(text: str, expected: set[str]) -> None:
    assert changing_names(text) == expected
    words = set(re.findall(r"\w+", text))
    assert {w for w in words if _spelled_changing(text, w)} == expected


def test_changing_names_as_the_forward_search_finds_them() -> None:
    alphabet = "ab_9é sa.[]=+*|\n\t("
    rnd = random.Random(45)
    for _ in range(20_000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 24)))
        words = set(re.findall(r"\w+", text))
        assert changing_names(text) == {w for w in words if _spelled_changing(text, w)}, text


def test_names_looked_up_in_the_indexes_are_searched_needles(ruleset: RuleSet) -> None:
    # The indexes read every file's text once, muted: each name looked up in one must
    # still count as a search for it (a cached check rereads a changed file holding it;
    # impact's read log holds `text:NAME`), as a files_mentioning search did.
    project = in_memory_project(
        {
            "pkg.state": "ENTRIES = []\n",
            "pkg.reg": "from pkg.state import ENTRIES\nENTRIES.append(print)\n",
            "gate": HEAD + SLOT + "from pkg.state import ENTRIES\n"
            "A = IS_ROCM and len(ENTRIES) > 0\n"
            "B = IS_ROCM and Lin().ready()\n",
        }
    )
    module = project.module("gate")
    assert module is not None
    semantics = Semantics(project, ruleset.registry, ruleset.vocabulary)
    for name in ("A", "B"):
        semantics.admission(module.locals[name][-1].parent.value)
    assert {"ENTRIES", "w"} <= project.searched_needles()


@pytest.mark.parametrize("searched", [0, 100])
def test_files_changing_one_name_at_a_time_or_from_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, searched: int
) -> None:
    """mutations.files_changing: the first names are searched one at a time (a `check`
    asks a few), then the whole project's index is built; both give the same files, in
    the project's order."""
    from gatecheck.config.loader import load_ruleset
    from gatecheck.loading.project import Project
    from gatecheck.semantics import mutations
    from gatecheck.semantics.admitted import Semantics

    texts = {
        "a.py": "ENTRIES.append(f)\nTABLE = {}\n",
        "b.py": "from a import ENTRIES as active\nx = TABLE\n",
        "c.py": "TABLE[k] = v\nTOTAL += 1\n_ENTRIES.pop()\n",
        "d.py": "ENTRIES == []\nxTOTAL += 1\n",
    }
    write_tree(tmp_path, texts)
    files = [tmp_path / name for name in sorted(texts)]
    monkeypatch.setattr(mutations, "MAX_NAMES_SEARCHED", searched)
    ruleset = load_ruleset([])
    semantics = Semantics(Project(files, [tmp_path]), ruleset.registry, ruleset.vocabulary)
    ev = semantics.evaluator(ruleset.registry.names[0])
    found = {
        name: [p.name for p in mutations.files_changing(ev, name)]
        for name in ("ENTRIES", "TABLE", "TOTAL", "active", "x", "missing")
    }
    assert found == {
        "ENTRIES": ["a.py", "b.py"],
        "TABLE": ["c.py"],
        "TOTAL": ["c.py"],
        "active": [],
        "x": [],
        "missing": [],
    }
    assert ("files-changing" in ev.facts) == (searched == 0)
