"""Expression -> admitted generations, one case per idiom (SEMANTICS.md).

Each case is a condition evaluated at the end of an in-memory module that imports a mini
package (`pkg.utils`, `pkg.platform`), through the pure entry point: no disk. Expected
sets are hand-labelled. Each idiom's own examples are in its module (tests/test_idioms.py)."""

from __future__ import annotations

import textwrap

import pytest

from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import Admission, admission_of, admitted

NV = [
    "sm70",
    "sm75",
    "sm80",
    "sm86",
    "sm87",
    "sm89",
    "sm90",
    "sm100",
    "sm103",
    "sm110",
    "sm120",
    "sm121",
]
AMD = ["gfx90a", "gfx942", "gfx950"]
ALL = NV + AMD

UTILS = """
from functools import lru_cache, partial
import torch

def is_cuda():
    return torch.cuda.is_available() and torch.version.cuda

def _check(majors, cuda_version):
    if not is_cuda():
        return False
    return (
        torch.cuda.get_device_capability()[0] in majors
        and tuple(map(int, torch.version.cuda.split(".")[:2])) >= cuda_version
    )

is_sm90_supported = lru_cache(maxsize=1)(partial(_check, majors=[9], cuda_version=(12, 3)))
is_sm100_supported = lru_cache(maxsize=1)(partial(_check, majors=[10], cuda_version=(12, 8)))
is_sm120_supported = lru_cache(maxsize=1)(partial(_check, majors=[12], cuda_version=(12, 8)))
is_blackwell = lru_cache(maxsize=1)(partial(_check, majors=[10, 11, 12], cuda_version=(12, 8)))

def get_device_sm():
    if torch.cuda.is_available():
        major, minor = torch.cuda.get_device_capability()
        return major * 10 + minor
    return 0

def is_nvidia_hopper():
    # the name says Hopper; the body says "Hopper or newer"
    return torch.cuda.get_device_capability()[0] >= 9

is_hip = lambda: torch.version.hip is not None
"""

PLATFORM = """
from typing import NamedTuple
import torch

class DeviceCapability(NamedTuple):
    major: int
    minor: int

    def to_int(self) -> int:
        return self.major * 10 + self.minor

class Platform:
    @classmethod
    def get_device_capability(cls, device_id: int = 0):
        return None

    @classmethod
    def has_device_capability(cls, capability, device_id: int = 0) -> bool:
        current = cls.get_device_capability(device_id=device_id)
        if current is None:
            return False
        if isinstance(capability, tuple):
            return current >= capability
        return current.to_int() >= capability

    @classmethod
    def is_device_capability(cls, capability, device_id: int = 0) -> bool:
        current = cls.get_device_capability(device_id=device_id)
        if current is None:
            return False
        if isinstance(capability, tuple):
            return current == capability
        return current.to_int() == capability

    @classmethod
    def is_device_capability_family(cls, capability: int, device_id: int = 0) -> bool:
        current = cls.get_device_capability(device_id=device_id)
        if current is None:
            return False
        return (current.to_int() // 10) == (capability // 10)

class CudaPlatform(Platform):
    @classmethod
    def get_device_capability(cls, device_id: int = 0):
        major, minor = torch.cuda.get_device_capability(device_id)
        return DeviceCapability(major=major, minor=minor)

    @property
    def is_sm90(self):
        return self.get_device_capability().major == 9

current_platform = CudaPlatform()

def get_platform():
    return current_platform
"""

HEADER = """
import os
from typing import TYPE_CHECKING
import torch
from pkg.utils import *
from pkg import utils
from pkg.platform import current_platform, get_platform, CudaPlatform, DeviceCapability
"""


def _sets(*names: str) -> set[str]:
    return set(names)


CASES = [
    # predicate calls, resolved through imports and partial/lru_cache
    pytest.param("is_sm90_supported()", _sets("sm90"), id="partial-predicate"),
    pytest.param("is_sm100_supported()", _sets("sm100", "sm103"), id="partial-predicate-family"),
    pytest.param(
        "is_sm90_supported() or is_sm100_supported()", _sets("sm90", "sm100", "sm103"), id="or"
    ),
    pytest.param("not is_sm90_supported()", set(ALL), id="not-of-unknown-true"),
    pytest.param("utils.is_sm120_supported()", _sets("sm120", "sm121"), id="module-attribute"),
    pytest.param(
        "is_blackwell()", _sets("sm100", "sm103", "sm110", "sm120", "sm121"), id="blackwell-majors"
    ),
    pytest.param("is_nvidia_hopper()", set(NV[6:]) | set(AMD), id="name-lies-hopper-or-newer"),
    pytest.param("is_cuda() and is_nvidia_hopper()", set(NV[6:]), id="is-cuda-excludes-amd"),
    pytest.param("is_hip()", set(AMD), id="lambda-hip"),
    # capability tuples and major/minor
    pytest.param(
        "torch.cuda.get_device_capability() >= (9, 0)", set(NV[6:]) | set(AMD), id="tuple-ge"
    ),
    pytest.param("torch.cuda.get_device_capability() == (12, 0)", _sets("sm120"), id="tuple-eq"),
    pytest.param(
        "torch.cuda.get_device_capability()[0] == 12", _sets("sm120", "sm121"), id="index-major"
    ),
    pytest.param(
        "torch.cuda.get_device_capability() in [(9, 0), (10, 0)]",
        _sets("sm90", "sm100", "gfx90a"),
        id="tuple-in-list",
    ),
    pytest.param(
        "MAJOR in [10, 12]", _sets("sm100", "sm103", "sm120", "sm121"), id="module-major-in"
    ),
    pytest.param(
        "90 <= SM < 120",
        _sets("sm90", "sm100", "sm103", "sm110", "gfx90a", "gfx942", "gfx950"),
        id="chained",
    ),
    pytest.param("SM >= 100", set(NV[7:]), id="sm-int"),
    pytest.param(
        "get_device_sm() in (90, 100)", _sets("sm90", "sm100", "gfx90a"), id="sm-int-helper"
    ),
    pytest.param(
        "torch.cuda.get_device_properties(0).major >= 10", set(NV[7:]), id="device-properties"
    ),
    pytest.param(
        '"gfx94" in torch.cuda.get_device_properties(0).gcnArchName', _sets("gfx942"), id="gcn-arch"
    ),
    # platform methods: read bodies
    pytest.param(
        "current_platform.has_device_capability(100)", set(NV[7:]), id="has-capability-ge"
    ),
    pytest.param(
        "current_platform.is_device_capability(100)", _sets("sm100"), id="is-capability-eq"
    ),
    pytest.param(
        "current_platform.is_device_capability_family(100)",
        _sets("sm100", "sm103"),
        id="capability-family",
    ),
    pytest.param(
        "current_platform.has_device_capability((12, 0))",
        _sets("sm120", "sm121"),
        id="has-capability-tuple",
    ),
    pytest.param(
        "get_platform().is_sm90", _sets("sm90", "gfx90a", "gfx942", "gfx950"), id="property"
    ),
    # a NamedTuple capability among NamedTuple ones: each compares as its fields' tuple
    pytest.param(
        "current_platform.get_device_capability() in "
        "(DeviceCapability(9, 0), DeviceCapability(10, 3))",
        _sets("sm90", "sm103", "gfx90a"),
        id="namedtuple-in-namedtuples",
    ),
    pytest.param(
        "current_platform.get_device_capability() not in [DeviceCapability(12, 0)]",
        set(ALL) - _sets("sm120"),
        id="namedtuple-not-in-a-list",
    ),
    # unknown terms stay unknown
    pytest.param(
        "torch.version.cuda >= '12.8' and is_sm100_supported()",
        _sets("sm100", "sm103"),
        id="cuda-version-unknown",
    ),
    pytest.param('"H20" in torch.cuda.get_device_name()', set(ALL), id="device-name-unknown"),
    pytest.param(
        "is_sm90_supported() if FLAG else is_sm100_supported()",
        _sets("sm90", "sm100", "sm103"),
        id="ifexp",
    ),
    # Kleene logic does not see that both sides are the same unknown: sm90 stays admitted.
    pytest.param(
        "is_sm90_supported() and not is_sm90_supported()", _sets("sm90"), id="unknown-contradiction"
    ),
    pytest.param("MAJOR == 9 and not MAJOR == 9", set(), id="known-contradiction"),
    pytest.param(
        "CAPS_TABLE.get(torch.cuda.get_device_capability()[0], False)",
        _sets("sm90", "sm100", "sm103", "gfx90a", "gfx942", "gfx950"),
        id="dict-get-keyed-by-major",
    ),
    pytest.param(
        "CAPS_TABLE[torch.cuda.get_device_capability()[0]]",
        _sets("sm90", "sm100", "sm103", "gfx90a", "gfx942", "gfx950"),
        id="dict-keyed-by-major",
    ),
    pytest.param("_IS_SM100", _sets("sm100", "sm103"), id="module-alias"),
    pytest.param("check_local()", _sets("sm120", "sm121"), id="local-major-minor"),
    pytest.param('match_arch(["120", "121"])', _sets("sm120", "sm121"), id="fstring-arch-list"),
    pytest.param('match_arch(["90a"])', set(), id="fstring-arch-list-never-matches"),
    pytest.param('props_dict()["cc"][0] >= 10', set(NV[7:]), id="dict-call-kwargs"),
    pytest.param(
        "capability_or_none() >= (9, 0)", set(NV[6:]) | set(AMD), id="other-backends-absent"
    ),
    pytest.param("DECLARED_ONLY", set(ALL), id="type-checking-declaration-unknown"),
    # comprehensions over a known list: gcnArchName substring idioms
    pytest.param(
        'any(a in torch.cuda.get_device_properties(0).gcnArchName for a in ["gfx942", "gfx950"])',
        _sets("gfx942", "gfx950"),
        id="any-over-arch-list",
    ),
    pytest.param(
        "any(MAJOR == m for m in (9, 12) if m > 10)", _sets("sm120", "sm121"), id="comp-with-if"
    ),
    pytest.param(
        "[m for m in (9, 12) if m == MAJOR] == [12]", _sets("sm120", "sm121"), id="listcomp"
    ),
    pytest.param("any(m == MAJOR for m in FLAG)", set(ALL), id="comp-over-unknown"),
    # None or a known value: narrowed by `is not None` / truthiness; `==` is None's
    # outcome or the value's (None is not 90); unknown elsewhere
    pytest.param("sm_nvml_first() >= 100", set(NV[7:]), id="none-or-narrowed"),
    pytest.param("sm_nvml_truthy() >= 100", set(NV[7:]), id="none-or-truthy"),
    # arithmetic on None raises: where `sm + 0` has a value, sm is the SM
    pytest.param("sm_nvml_unchecked() >= 100", set(NV[7:]), id="none-or-arithmetic"),
    pytest.param("sm_checked_inline()", set(NV[7:]), id="none-or-narrowed-by-and"),
    pytest.param("sm_none_or_old()", set(ALL), id="none-or-narrowed-by-or"),
    pytest.param("sm_checked_if_and() == 100", _sets("sm100"), id="none-or-if-and-branch"),
    pytest.param("sm_via_nvml() == 90", {"sm90", "gfx90a"}, id="none-or-compared-equal"),
    pytest.param("sm_or_none_merged() == 90", _sets("sm90", "gfx90a"), id="none-or-merged"),
    # ... passed to a project function: its parameter is narrowed as the local would be
    pytest.param("sm_passed_on()", set(NV[7:]), id="none-or-passed-as-an-argument"),
    # ... or ordered there without a test: ordering None raises, so the value decides
    pytest.param("sm_passed_to_unchecked()", set(NV[7:]), id="none-or-passed-and-ordered"),
    pytest.param("any(m == MAJOR for m in (9,) if FLAG)", set(ALL), id="comp-unknown-if"),
    pytest.param("mi300_by_loop()", _sets("gfx942"), id="loop-over-a-known-list-unrolled"),
    pytest.param(
        "major_by_loop() == 10", _sets("sm100", "sm103"), id="loop-returns-the-item-it-meets"
    ),
    # A break is not unrolled: the iterations are read alike, the item one of the known
    # items (env.loop_item), so a test of it is each item's.
    pytest.param("loop_with_break()", _sets("gfx942"), id="loop-with-break-over-known-items"),
    # Refusal: unknown items keep the loop as any number of iterations, the answer open.
    pytest.param("loop_over_unknown()", set(ALL), id="loop-over-unknown-items-not-unrolled"),
    pytest.param(
        "older_device_found()",
        _sets("sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm90", "gfx90a", "gfx942", "gfx950"),
        id="search-loop-iterations-alike",
    ),
    # where no device is older no iteration counts: 0 stays 0; elsewhere unknown
    pytest.param(
        "older_devices_counted() > 0",
        _sets("sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm90", "gfx90a", "gfx942", "gfx950"),
        id="counting-loop-alike-where-nothing-counts",
    ),
    # the loop never goes on: the body returns True, or the else False
    pytest.param(
        "hopper_somewhere_or_false()",
        _sets("sm90", "gfx90a", "gfx942", "gfx950"),
        id="loop-and-else-both-return",
    ),
    pytest.param(
        "devices_counted() > 1 and torch.cuda.get_device_capability()[0] >= 10",
        set(NV[7:]),
        id="every-iteration-changes-the-count-unknown",
    ),
]

GATE_BODY = """
MAJOR = torch.cuda.get_device_capability()[0]
SM = get_device_sm()
CAPS_TABLE = {9: True, 10: True}
_IS_SM100 = is_cuda() and is_sm100_supported()
FLAG = os.environ.get("USE_FAST_PATH") == "1"

if TYPE_CHECKING:
    DECLARED_ONLY: bool = False

def match_arch(archs):
    major, minor = torch.cuda.get_device_capability()
    return f"{major * 10 + minor}" in archs

def props_dict():
    props = torch.cuda.get_device_properties(0)
    return dict(cc=(props.major, props.minor), name=props.name)

def capability_or_none():
    major, minor = None, None
    if hasattr(torch, "cuda") and torch.cuda.is_available():
        major, minor = torch.cuda.get_device_capability()
    if hasattr(torch, "xpu") and torch.xpu.is_available():
        major, minor = None, None
    return major, minor

def mi300_by_loop():
    arch_name = torch.cuda.get_device_properties(0).gcnArchName
    for arch in ["gfx940", "gfx941", "gfx942"]:
        if arch in arch_name:
            return True
    return False

def major_by_loop():
    for major in (9, 10):
        if MAJOR == major:
            return major
    return None

def loop_with_break():
    found = False
    for arch in ["gfx940", "gfx942"]:
        if arch in torch.cuda.get_device_properties(0).gcnArchName:
            found = True
            break
    return found

def older_device_found():
    found = False
    for index in range(torch.cuda.device_count()):
        if torch.cuda.get_device_capability(index)[0] < 10:
            found = True
            break
    return found

def older_devices_counted():
    count = 0
    for index in range(torch.cuda.device_count()):
        if torch.cuda.get_device_capability(index)[0] < 10:
            count = count + 1
    return count

def hopper_somewhere_or_false():
    for index in range(torch.cuda.device_count()):
        if torch.cuda.get_device_capability(index)[0] == 9:
            return True
    else:
        return False

def devices_counted():
    count = 0
    for index in range(torch.cuda.device_count()):
        count = count + 1
    return count

def loop_over_unknown():
    for arch in os.environ.get("ARCHS", "").split(","):
        if arch in torch.cuda.get_device_properties(0).gcnArchName:
            return True
    return False

def check_local():
    major, minor = torch.cuda.get_device_capability()
    value = major * 10 + minor
    return value >= 120

def sm_via_nvml():
    # sglang 0.5.23's get_device_sm(): NVML first, None when it cannot answer.
    try:
        import pynvml
    except ImportError:
        return None
    try:
        handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        major, minor = pynvml.nvmlDeviceGetCudaComputeCapability(handle)
        return major * 10 + minor
    except Exception:
        return None

def sm_nvml_first():
    if not torch.cuda.is_initialized():
        sm = sm_via_nvml()
        if sm is not None:
            return sm
    major, minor = torch.cuda.get_device_capability()
    return major * 10 + minor

def sm_nvml_truthy():
    sm = sm_via_nvml()
    if sm:
        return sm
    major, minor = torch.cuda.get_device_capability()
    return major * 10 + minor

def sm_checked_inline():
    sm = sm_via_nvml()
    return sm is not None and sm >= 100

def sm_none_or_old():
    sm = sm_via_nvml()
    return sm is None or sm < 100

def sm_checked_if_and():
    sm = sm_via_nvml()
    if sm is not None and sm >= 100:
        return sm
    return 0

def sm_nvml_unchecked():
    sm = sm_via_nvml()
    return sm + 0

def sm_or_none_merged():
    sm = None
    if torch.cuda.is_initialized():
        major, minor = torch.cuda.get_device_capability()
        sm = major * 10 + minor
    if sm is None:
        major, minor = torch.cuda.get_device_capability()
        sm = major * 10 + minor
    return sm

def sm_when_initialized():
    if torch.cuda.is_initialized():
        major, minor = torch.cuda.get_device_capability()
        return major * 10 + minor
    return None

def at_least_100(sm):
    if sm is None:
        return False
    return sm >= 100

def sm_passed_on():
    sm = sm_when_initialized()
    return at_least_100(sm)

def sm_passed_unchecked(sm):
    return sm >= 100

def sm_passed_to_unchecked():
    sm = sm_when_initialized()
    return sm_passed_unchecked(sm)
"""


MODULES = {"pkg.utils": UTILS, "pkg.platform": PLATFORM}


def _admission(ruleset: RuleSet, expr: str) -> Admission:
    source = textwrap.dedent(HEADER) + textwrap.dedent(GATE_BODY)
    return admission_of(source, expr, ruleset.registry, modules=MODULES)


def _admitted(ruleset: RuleSet, expr: str) -> set[str]:
    admission = _admission(ruleset, expr)
    # Every case here has readable bodies: nothing may come from naming conventions.
    assert not admission.assumed, admission.assumed
    return set(admission.can_be_true)


@pytest.mark.parametrize(("expr", "expected"), CASES)
def test_admitted(ruleset: RuleSet, expr: str, expected: set[str]) -> None:
    assert _admitted(ruleset, expr) == expected


def test_unknown_everywhere_is_not_a_gate(ruleset: RuleSet) -> None:
    assert _admitted(ruleset, "FLAG and len('x') == 1") == set(ALL)


def test_admitted_is_pure(ruleset: RuleSet) -> None:
    """The scripting entry point: a source and an expression, no files."""
    assert admitted("import torch", "torch.cuda.get_device_capability()[0] == 9") == {
        "sm90",
        "gfx90a",
        "gfx942",
        "gfx950",
    }
