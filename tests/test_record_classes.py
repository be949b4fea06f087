"""Records whose `__init__` a library writes (a dataclass, a pydantic dataclass, a
`msgspec.Struct`) and what a platform snapshot built from them lets a requirement test:
sglang's kernel registry (`CapabilityRequirement.cuda(min_sm=(10, 0))`, a Struct, tested
against `PlatformInfo.detect()` by `capabilities_satisfied(frozenset({...}), platform)`).

- A construction leaves each field it does not pass at its default
  (semantics/dataclass_init.generated_init): `cls(device_type="hip")` has `major = None`.
- A project function called with one of a few instances (a factory's several returns) is
  read once for each (semantics/calls.py), so one instance's fields are read together.
- A builtin's constant is no instance of a project class (`isinstance(frozenset(...),
  Req)` is false), and a comprehension over a set of known items reads each, in no known
  order (`any()` reads them; an index does not).
The noops say why each stays as it was."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from gatecheck.audit import run_audit
from gatecheck.config.model import RuleSet
from tests.admission import EVERY, assert_can_be_true

SM10X = {"sm100", "sm103"}
FROM_SM100 = {"sm100", "sm103", "sm110", "sm120", "sm121"}
NVIDIA_FROM_SM90 = {"sm90", *FROM_SM100}

# A platform snapshot whose factory returns one of three records, and a requirement record
# whose method tests the snapshot; `{record}` is how both classes are declared.
PLATFORM = """\
import torch
{imports}


{record}
class Platform{base}:
    device_type: str = "cpu"
    major: Optional[int] = None
    minor: Optional[int] = None

    @classmethod
    def detect(cls):
        try:
            if torch.version.hip is not None and torch.cuda.is_available():
                return cls(device_type="hip")
            if torch.cuda.is_available():
                major, minor = torch.cuda.get_device_capability()
                return cls(device_type="cuda", major=major, minor=minor)
        except Exception:
            pass
        return cls()


{record}
class Requirement{base}:
    device: str
    min_sm: Optional[Tuple[int, int]] = None
    max_sm: Optional[Tuple[int, int]] = None

    @classmethod
    def cuda(cls, min_sm=None, max_sm=None):
        return cls(device="cuda", min_sm=min_sm, max_sm=max_sm)

    def is_satisfied_by(self, platform):
        if self.device != platform.device_type:
            return False
        if self.device == "cuda" and platform.major is not None:
            arch = (platform.major, platform.minor or 0)
            if self.min_sm is not None and arch < self.min_sm:
                return False
            if self.max_sm is not None and arch > self.max_sm:
                return False
        return True


def satisfied(capabilities, platform):
    if isinstance(capabilities, Requirement):
        capabilities = (capabilities,)
    return (not capabilities) or any(c.is_satisfied_by(platform) for c in capabilities)
"""

STRUCT = PLATFORM.format(
    imports="from enum import Enum\nfrom typing import Optional, Tuple\n\nimport msgspec",
    record="",
    base="(msgspec.Struct, frozen=True)",
)
DATACLASS = PLATFORM.format(
    imports="from dataclasses import dataclass\nfrom typing import Optional, Tuple",
    record="@dataclass(frozen=True)",
    base="",
)
PYDANTIC = PLATFORM.format(
    imports="from typing import Optional, Tuple\n\nfrom pydantic.dataclasses import dataclass",
    record="@dataclass(frozen=True)",
    base="",
)
SM10X_ONLY = "Requirement.cuda(min_sm=(10, 0), max_sm=(10, 9))"

CASES = [
    *(
        pytest.param(source, expr, expected, id=f"{kind}-{name}")
        for kind, source in (("struct", STRUCT), ("dataclass", DATACLASS), ("pydantic", PYDANTIC))
        for name, expr, expected in (
            # The hip record passes no major: its default None is never 10.
            ("a-field-not-passed-is-its-default", "Platform.detect().major == 10", SM10X),
            (
                "a-method-read-for-each-return",
                f"{SM10X_ONLY}.is_satisfied_by(Platform.detect())",
                SM10X,
            ),
            (
                "a-frozenset-of-one-requirement",
                f"satisfied(frozenset({{{SM10X_ONLY}}}), Platform.detect())",
                SM10X,
            ),
            (
                "a-set-of-two-requirements-either-one",
                "satisfied({Requirement.cuda(min_sm=(9, 0), max_sm=(9, 0)), "
                f"{SM10X_ONLY}}}, Platform.detect())",
                {"sm90", *SM10X},
            ),
            ("one-requirement-alone", f"satisfied({SM10X_ONLY}, Platform.detect())", SM10X),
        )
    ),
    pytest.param(
        STRUCT,
        "Requirement.cuda(min_sm=(9, 0)).is_satisfied_by(Platform.detect())",
        NVIDIA_FROM_SM90,
        id="struct-an-open-window",
    ),
    pytest.param(
        STRUCT.replace("    device: str\n", "    device: str = msgspec.field(default='cuda')\n")
        + "\n\nclass Window(Requirement, kw_only=True):\n    note: str\n",
        "Window(min_sm=(10, 0), note='x').is_satisfied_by(Platform.detect())",
        FROM_SM100,
        id="struct-a-subclass-keeps-the-fields-and-defaults",
    ),
]

# Each stays as it was read before: a field not passed is unknown, the calls through one
# of the instances read with the OneOf, an index of a set's items unknown.
NOOPS = [
    pytest.param(
        STRUCT.replace("class Platform(msgspec.Struct, frozen=True):", "class Platform:").replace(
            '    device_type: str = "cpu"\n',
            '    device_type: str = "cpu"\n\n    def __init__(self, **fields):\n'
            "        self.__dict__.update(fields)\n",
        ),
        "Platform.detect().major == 10",
        # Its own `__init__` may set anything: the hip record's major is unknown there.
        {"gfx90a", "gfx942", "gfx950", *SM10X},
        id="an-init-of-its-own-writes-what-it-likes",
    ),
    pytest.param(
        STRUCT.replace("class Platform(msgspec.Struct, frozen=True):", "class Platform(Base):"),
        "Platform.detect().major == 10",
        {"gfx90a", "gfx942", "gfx950", *SM10X},
        id="a-base-not-read-may-write-init",
    ),
    pytest.param(
        STRUCT + "\n\nclass Kind(str, Enum):\n    CUDA = 'cuda'\n",
        "isinstance(Kind.CUDA, Kind) and Platform.detect().major == 10",
        # The member is read as its value, a str: an instance of a class deriving from str.
        SM10X,
        id="a-str-enum-member-may-be-an-instance",
    ),
    pytest.param(
        STRUCT,
        "[r.is_satisfied_by(Platform.detect()) for r in "
        f"{{Requirement.cuda(min_sm=(9, 0), max_sm=(9, 0)), {SM10X_ONLY}}}][0]",
        EVERY,
        id="the-first-of-a-set-is-not-known",
    ),
]


@pytest.mark.parametrize(("source", "expr", "expected"), [*CASES, *NOOPS])
def test_records_read_as_constructed(
    ruleset: RuleSet, source: str, expr: str, expected: object
) -> None:
    assert_can_be_true(ruleset, source, expr, expected)


KERNELS = """\
from pkg.spec import Platform, Requirement, satisfied

_SM10X = frozenset({Requirement.cuda(min_sm=(10, 0), max_sm=(10, 9))})
_SM90 = frozenset({Requirement.cuda(min_sm=(9, 0), max_sm=(9, 0))})


def pick(x):
    if satisfied(_SM10X, Platform.detect()):
        return "tcgen05"
    if satisfied(_SM90, Platform.detect()):
        return "wgmma"
    return "fallback"
"""


def test_a_kernel_registry_of_struct_requirements_is_audited(
    make_tree: Callable[[Mapping[str, str]], Path], ruleset: RuleSet
) -> None:
    """Each registry test is a row with its requirement's window (sglang 0.5.23's
    `capabilities_satisfied(_SM90, _platform())` had none: a Struct's fields were read
    as unknown)."""
    root = make_tree({"pkg/__init__.py": "", "pkg/spec.py": STRUCT, "pkg/ops.py": KERNELS})
    report = run_audit([root], ruleset, "sm120")
    rows = {
        (g.path.name, g.start.line, frozenset(g.admits))
        for g in report.gates
        if g.path.name == "ops.py"
    }
    assert rows == {("ops.py", 8, frozenset(SM10X)), ("ops.py", 10, frozenset({"sm90"}))}
