"""Members of an `enum.Enum` class read as values: `Kind.BIG.value` is what the class body
assigns it, `.name` its name, `Kind["BIG"]` the member of that name. Thresholds kept in
an Enum (a shared-memory amount per architecture, compared with the device's) are read
through them; a member the class lacks, a value from `auto()` and an attribute that is
not `.value` / `.name` stay unknown. `Kind(value)` is the member with that value (a value
no member has raises); an Enum mixing in `str` or `int` (sglang's `class DeviceType(str,
Enum)`) has members equal to their values, read as those values."""

from __future__ import annotations

import pytest
from astroid import nodes

from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import Semantics, in_memory_project
from tests.admission import EVERY, assert_can_be_true

HOPPER_SIZED = frozenset({"sm90", "sm100", "sm103", "sm110"})
AMD = frozenset({"gfx90a", "gfx942", "gfx950"})
FROM_99_KB = HOPPER_SIZED | AMD | {"sm80", "sm86", "sm87", "sm89", "sm120", "sm121"}

HEADER = """import enum
import torch


class Need(enum.Enum):
    SMALL = 101376
    BIG = 232448
    LARGE = 232448
    AUTO = enum.auto()

    @classmethod
    def of(cls, arch):
        try:
            return cls[arch.upper()].value
        except KeyError:  # runs only for a name the class lacks (raising.py)
            return cls.SMALL.value


props = torch.cuda.get_device_properties(0)
smem = props.shared_memory_per_block_optin
"""

NVIDIA = frozenset(
    {"sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm90"}
    | {"sm100", "sm103", "sm110", "sm120", "sm121"}
)
# A platform record naming its device with a `str` Enum, as sglang's kernel registry does.
MIXED = """import dataclasses
import enum
import torch


class Device(str, enum.Enum):
    CUDA = "cuda"
    HIP = "hip"
    CPU = "cpu"


@dataclasses.dataclass(frozen=True)
class Platform:
    kind: str

    @property
    def device(self):
        try:
            return Device(self.kind)
        except ValueError:
            return Device.CPU


def platform(kind=None):
    if kind is not None:
        return Platform(kind)
    return Platform("hip" if torch.version.hip is not None else "cuda")
"""

CASES = [
    pytest.param(HEADER, "smem >= Need.BIG.value", HOPPER_SIZED | AMD, id="value"),
    pytest.param(HEADER, 'smem >= Need["BIG"].value', HOPPER_SIZED | AMD, id="by-name"),
    pytest.param(HEADER, 'smem >= Need.of("big")', HOPPER_SIZED | AMD, id="classmethod-by-name"),
    pytest.param(
        HEADER, 'smem >= Need.of("none")', FROM_99_KB, id="classmethod-missing-name-fallback"
    ),
    pytest.param(HEADER, 'Need.BIG.name == "BIG"', EVERY, id="name"),
    pytest.param(HEADER, 'Need.BIG.name == "SMALL"', frozenset(), id="name-differs"),
    pytest.param(HEADER, 'Need.LARGE.name == "BIG"', EVERY, id="alias-is-its-member"),
    pytest.param(HEADER, "Need.SMALL.value == 1", frozenset(), id="value-differs"),
    pytest.param(HEADER, "Need(232448) == Need.BIG", EVERY, id="by-value"),
    pytest.param(HEADER, "Need(232448) == Need.SMALL", frozenset(), id="by-value-another-member"),
    pytest.param(MIXED, 'platform().device == "cuda"', NVIDIA, id="str-mixin-equals-its-value"),
    pytest.param(MIXED, "platform().device == Device.CUDA", NVIDIA, id="str-mixin-by-value"),
    pytest.param(MIXED, 'platform("npu").device == Device.CPU', EVERY, id="no-member-raises"),
    # Noops: what the class does not say.
    pytest.param(HEADER, "Need.AUTO.value == 4", EVERY, id="noop-auto"),
    pytest.param(HEADER, 'Need["HUGE"].value == 1', EVERY, id="noop-missing-member"),
    pytest.param(HEADER, "Need.BIG.label == 1", EVERY, id="noop-other-attribute"),
    pytest.param(HEADER, "Need(7) == Need.BIG", EVERY, id="noop-a-value-no-member-has"),
    pytest.param(
        HEADER, "Need(torch.cuda.device_count()) == Need.BIG", EVERY, id="noop-a-value-not-known"
    ),
    pytest.param(
        HEADER + "class Plain:\n    BIG = 1\n",
        'Plain["BIG"] == 1',
        EVERY,
        id="noop-not-an-enum",
    ),
]


@pytest.mark.parametrize(("source", "expr", "admitted"), CASES)
def test_enum_values(ruleset: RuleSet, source: str, expr: str, admitted: object) -> None:
    assert_can_be_true(ruleset, source, expr, admitted)


def test_a_parameter_annotated_with_a_str_enum_is_no_instance_of_it(ruleset: RuleSet) -> None:
    """An enum's instances are its members: a parameter annotated with one that no caller
    passes is not read as an instance made by the class (conventions._annotated_instance),
    a `(str, Enum)` no more than a plain one; the member's property stays unread."""
    text = (
        MIXED.replace(
            "    @property\n    def device(self):", "    @property\n    def unused(self):"
        )
        + "\n\nclass Kind(str, enum.Enum):\n    A = 'a'\n\n    @property\n    def native(self):\n"
        "        return False\n\n\ndef fast(kind: Kind):\n"
        "    return (kind.native or torch.version.hip is None) and "
        "torch.cuda.get_device_capability()[0] >= 9  # gate\n"
    )
    project = in_memory_project({"gate": text})
    module = project.module("gate")
    assert module is not None
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "# gate" in t)
    node = next(r.value for r in module.nodes_of_class(nodes.Return) if r.lineno == line)
    admission = Semantics(project, ruleset.registry, follow_callers=True).admission(node)
    assert {"gfx90a", "gfx942", "gfx950"} <= admission.can_be_true
