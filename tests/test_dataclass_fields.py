"""A @dataclass's field read on an instance whose making is not in view (`self.top_cc` in
a property) takes what every construction passes for it, by keyword or by its place in
the `__init__` the decorator writes (gatecheck/semantics/dataclass_init.py), as a field
an explicit `__init__` stores does (callers.py). Where that `__init__` or the field's
value is not fully known, the field stays unknown."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import Semantics, in_memory_project
from tests.test_callers_union import BELOW_10, _admits, _marked

HEAD = "import dataclasses\nfrom dataclasses import KW_ONLY, InitVar, dataclass, field\n\n"
NOT_SM70 = {
    *("sm75", "sm80", "sm86", "sm87", "sm89", "sm90", "sm100", "sm103", "sm110"),
    *("sm120", "sm121", "gfx90a", "gfx942", "gfx950"),
}


def specs(fields: str, made: str, decorator: str = "@dataclass(frozen=True)") -> str:
    """A class whose property tests its `top_cc` field, and how it is made."""
    return (
        f"{HEAD}{decorator}\n"
        "class Specs:\n"
        f"{fields}"
        "\n"
        "    @property\n"
        "    def fast(self):\n"
        "        return self.top_cc >= (7, 5)  # gate\n"
        "\n"
        "def make():\n"
        f"    return {made}\n"
    )


THRESHOLD = (
    f"{HEAD}@dataclass(frozen=True)\n"
    "class Cap:\n"
    "    min_cc: tuple | None = None\n"
    "\n"
    "    def ok(self):\n"
    "        cc = torch.cuda.get_device_capability()\n"
    "        return self.min_cc is not None and cc < self.min_cc  # gate\n"
    "\n"
)

CASES = [
    pytest.param(
        specs("    top_cc: tuple\n", "Specs(top_cc=torch.cuda.get_device_capability())"),
        NOT_SM70,
        id="made-once-by-keyword",
    ),
    pytest.param(
        specs(
            "    name: str\n    top_cc: tuple\n", "Specs('x', torch.cuda.get_device_capability())"
        ),
        NOT_SM70,
        id="made-once-by-position",
    ),
    pytest.param(
        f"{HEAD}@dataclass\nclass Base:\n    name: str\n\n"
        + specs("    top_cc: tuple\n", "Specs('x', torch.cuda.get_device_capability())")
        .replace(HEAD, "")
        .replace("class Specs:", "class Specs(Base):"),
        NOT_SM70,
        id="a-base-dataclass-fields-come-first",
    ),
    pytest.param(
        specs(
            "    verbose: bool = field(default=False, kw_only=True)\n    top_cc: tuple = (0, 0)\n",
            "Specs(torch.cuda.get_device_capability())",
        ),
        NOT_SM70,
        id="a-keyword-only-field-takes-no-place",
    ),
    pytest.param(
        THRESHOLD + "A = Cap(min_cc=(9, 0))\nB = Cap((10, 0))\nC = Cap()\n",
        BELOW_10,
        id="a-threshold-from-three-constructions-one-leaving-the-default",
    ),
    pytest.param(
        # `cls(...)` in a classmethod is a construction too: read as the other one's
        # default alone, the field was None and the gate true nowhere.
        THRESHOLD.replace(
            "    def ok(self):",
            "    @classmethod\n    def of(cls, cc):\n        return cls(min_cc=cc)\n\n"
            "    def ok(self):",
        )
        + "A = Cap()\nB = Cap.of((10, 0))\n",
        BELOW_10,
        id="made-by-a-classmethod-through-cls",
    ),
]

# Each must stay unknown (every generation): read as the constructions' device value
# alone, the field would exclude sm70, where (12, 0) or a value not read makes it true.
NOOPS = [
    pytest.param(
        specs("    top_cc: tuple\n", "Specs(torch.cuda.get_device_capability())")
        + "\ndef older(s):\n    return dataclasses.replace(s, top_cc=(12, 0))\n",
        id="dataclasses-replace-gives-the-field-another-value",
    ),
    pytest.param(
        specs("    top_cc: tuple\n", "Specs(torch.cuda.get_device_capability())")
        + "\ndef changed(s, changes):\n    return dataclasses.replace(s, **changes)\n",
        id="dataclasses-replace-with-names-not-read",
    ),
    pytest.param(
        specs(
            "    top_cc: tuple\n\n    def __post_init__(self):\n"
            "        object.__setattr__(self, 'top_cc', (12, 0))\n",
            "Specs(torch.cuda.get_device_capability())",
        ),
        id="post-init-sets-it-again",
    ),
    pytest.param(
        specs(
            "    top_cc: tuple = field(default=(12, 0), init=False)\n    low: tuple = (0, 0)\n",
            "Specs(torch.cuda.get_device_capability())",
        ),
        id="a-field-init-does-not-take",
    ),
    pytest.param(
        specs(
            "    name: str\n    top_cc: tuple = field(default_factory=lambda: (12, 0))\n",
            "Specs('x', torch.cuda.get_device_capability()), Specs('y')",
        ),
        id="a-default-factory-not-read",
    ),
    pytest.param(
        specs("    top_cc: tuple\n", "Specs(torch.cuda.get_device_capability())").replace(
            "class Specs:", "class Specs(ExternalBase):"
        ),
        id="a-base-not-read-may-bring-fields",
    ),
    pytest.param(
        specs(
            "    top_cc: tuple\n\n    def __init__(self, cap):\n        self.top_cc = (12, 0)\n",
            "Specs(torch.cuda.get_device_capability())",
        ),
        id="an-explicit-init-is-not-written",
    ),
    pytest.param(
        specs("    top_cc: tuple\n", "Specs(top_cc=torch.cuda.get_device_capability())").replace(
            "from dataclasses import KW_ONLY, InitVar, dataclass, field",
            "from dataclasses import KW_ONLY, InitVar, field\n\ndef dataclass(**options):\n"
            "    return lambda cls: cls",
        ),
        id="a-decorator-of-that-name-not-the-standard-one",
    ),
    pytest.param(
        specs("    top_cc: InitVar[tuple]\n", "Specs(torch.cuda.get_device_capability())"),
        id="an-init-var-is-no-field",
    ),
    pytest.param(
        specs(
            "    top_cc: tuple\n\n    def older(self):\n        return type(self)((12, 0))\n",
            "Specs(torch.cuda.get_device_capability())",
        ),
        id="a-construction-through-type-self-is-not-read",
    ),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_field_from_constructions(ruleset: RuleSet, source: str, expected: set[str]) -> None:
    assert _admits(ruleset, "import torch\n" + source) == expected


@pytest.mark.parametrize("source", NOOPS)
def test_field_stays_unknown(ruleset: RuleSet, source: str) -> None:
    assert _admits(ruleset, "import torch\n" + source) == ruleset.registry.all_names()


def test_a_construction_passing_the_field_from_itself(ruleset: RuleSet) -> None:
    """`Specs(top_cc=...self.top_cc...)` in a method: the field read through itself, a
    cycle, is unknown there (not a recursion to Python's limit, a bound hit)."""
    text = "import torch\n" + specs(
        "    top_cc: tuple\n\n    def newer(self):\n"
        "        return Specs(top_cc=(self.top_cc[0] + 5, 0))\n",
        "Specs(torch.cuda.get_device_capability())",
    )
    project = in_memory_project({"gate": text})
    module = project.module("gate")
    assert module is not None
    admission = Semantics(project, ruleset.registry, follow_callers=True).admission(
        _marked(module, text)
    )
    assert admission.can_be_true == ruleset.registry.all_names()
    assert not admission.bounds


@pytest.mark.parametrize(
    ("other", "expected"),
    [
        # A string's replace in a file that never names dataclasses replaces no field.
        ("def tidy(s, opts):\n    return s.replace('a', **opts)\n", NOT_SM70),
        # One in a file that names dataclasses may be dataclasses.replace.
        (
            "from dataclasses import replace\n"
            "def older(s, changes):\n    return replace(s, **changes)\n",
            None,
        ),
    ],
    ids=["a-string-replace-elsewhere", "dataclasses-replace-elsewhere"],
)
def test_replace_calls_in_other_files(
    ruleset: RuleSet, other: str, expected: set[str] | None
) -> None:
    source = "import torch\n" + specs(
        "    top_cc: tuple\n", "Specs(top_cc=torch.cuda.get_device_capability())"
    )
    project = in_memory_project({"gate": source, "other": other})
    module = project.module("gate")
    assert module is not None
    semantics = Semantics(project, ruleset.registry, follow_callers=True)
    admits = semantics.admission(_marked(module, source)).can_be_true
    assert admits == (ruleset.registry.all_names() if expected is None else expected)
