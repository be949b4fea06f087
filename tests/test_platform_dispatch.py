"""Runtime platform dispatch (vLLM's and sglang's `current_platform`): a module attribute
declared only by its type (`current_platform: Platform`) and made at runtime by a module
`__getattr__` that probes the driver is, for a generation, an instance of the one most
general subclass named for its vendor (CudaPlatformBase on NVIDIA, RocmPlatform on AMD),
made without arguments; the answers that use it are marked assumed. Enum members compare
as members. The mini-project below is modelled on that layout, and kept in memory."""

from __future__ import annotations

import pytest
from astroid import nodes

from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import Admission, Semantics, in_memory_project

INTERFACE = """
import enum
from typing import NamedTuple

import torch


class PlatformEnum(enum.Enum):
    CUDA = enum.auto()
    ROCM = enum.auto()
    CPU = enum.auto()


class Level(enum.Enum):
    LOW = 1
    BOTTOM = 1
    HIGH = 2


class DeviceCapability(NamedTuple):
    major: int
    minor: int


class Platform:
    _enum: PlatformEnum
    device_name: str = "generic"

    def is_cuda(self) -> bool:
        return self._enum == PlatformEnum.CUDA

    def is_rocm(self) -> bool:
        return self._enum == PlatformEnum.ROCM

    def is_cuda_alike(self) -> bool:
        return self._enum in (PlatformEnum.CUDA, PlatformEnum.ROCM)

    @classmethod
    def get_device_capability(cls):
        return None

    def has_device_capability(self, capability: int) -> bool:
        current = self.get_device_capability()
        if current is None:
            return False
        return current.major * 10 + current.minor >= capability
"""

CUDA = """
import torch
from pkg.platforms.interface import DeviceCapability, Platform, PlatformEnum


class CudaPlatformBase(Platform):
    _enum = PlatformEnum.CUDA
    device_name = "cuda"

    @classmethod
    def get_device_capability(cls):
        major, minor = torch.cuda.get_device_capability()
        return DeviceCapability(major=major, minor=minor)

    def __init__(self):
        self.device_name = "set at runtime"


class NvmlCudaPlatform(CudaPlatformBase):
    pass
"""

ROCM = """
import torch
from pkg.platforms.interface import DeviceCapability, Platform, PlatformEnum


class RocmPlatform(Platform):
    _enum = PlatformEnum.ROCM

    @classmethod
    def get_device_capability(cls):
        major, minor = torch.cuda.get_device_capability()
        return DeviceCapability(major=major, minor=minor)
"""

CPU = """
from pkg.platforms.interface import Platform, PlatformEnum


class CpuPlatform(Platform):
    _enum = PlatformEnum.CPU
"""

INIT = """
from typing import TYPE_CHECKING

from pkg.platforms.interface import Platform

if TYPE_CHECKING:
    current_platform: Platform


def __getattr__(name):
    raise AttributeError(name)
"""

GATE = """
from pkg.platforms import current_platform
from pkg.platforms.interface import Level, PlatformEnum


def gate():
    return {expr}
"""

NV = {"sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm90", "sm100", "sm103", "sm110"}
NV |= {"sm120", "sm121"}
AMD = {"gfx90a", "gfx942", "gfx950"}


def _admission(ruleset: RuleSet, expr: str, files: dict[str, str]) -> Admission:
    tree = {
        "pkg/__init__.py": "",
        "pkg/platforms/__init__.py": INIT,
        "pkg/platforms/interface.py": INTERFACE,
        "pkg/platforms/cuda.py": CUDA,
        "pkg/platforms/rocm.py": ROCM,
        "pkg/platforms/cpu.py": CPU,
        "pkg/gate.py": GATE.format(expr=expr),
        **files,
    }
    project = in_memory_project(tree)  # no disk: the layout is all that matters
    module = project.module("pkg.gate")
    assert module is not None
    returned = next(module.nodes_of_class(nodes.Return)).value
    return Semantics(project, ruleset.registry).admission(returned)


CASES = [
    pytest.param("current_platform.is_cuda()", NV, id="is-cuda"),
    pytest.param("current_platform.is_rocm()", AMD, id="is-rocm"),
    pytest.param("not current_platform.is_rocm()", NV, id="not-rocm"),
    pytest.param("current_platform.is_cuda_alike()", NV | AMD, id="cuda-alike"),
    pytest.param(
        "current_platform.is_cuda() and current_platform.has_device_capability(90)",
        {"sm90", "sm100", "sm103", "sm110", "sm120", "sm121"},
        id="cuda-and-capability",
    ),
    pytest.param(
        "current_platform.is_rocm() and current_platform.has_device_capability(94)",
        {"gfx942", "gfx950"},
        id="rocm-and-capability",
    ),
    # A class-level value that a method assigns on the instance stays a default only
    # (CudaPlatformBase.__init__); where none does, it is the value (RocmPlatform).
    pytest.param("current_platform.device_name == 'cuda'", NV, id="instance-assigned"),
    # Enum members are members: equal to themselves and their aliases only.
    pytest.param("PlatformEnum.CUDA == PlatformEnum.ROCM", set(), id="enum-distinct"),
    pytest.param("PlatformEnum.CUDA != PlatformEnum.CUDA", set(), id="enum-same"),
    pytest.param("Level.LOW == Level.BOTTOM", NV | AMD, id="enum-alias"),
    pytest.param("Level.LOW == 1", set(), id="enum-is-not-its-value"),
]


@pytest.mark.parametrize(("expr", "expected"), CASES)
def test_dispatch(ruleset: RuleSet, expr: str, expected: set[str]) -> None:
    admission = _admission(ruleset, expr, {})
    assert set(admission.can_be_true) == expected


def test_dispatch_is_marked_assumed(ruleset: RuleSet) -> None:
    admission = _admission(ruleset, "current_platform.is_rocm()", {})
    assert any("runtime platform dispatch" in a for a in admission.assumed), admission.assumed


_OTHER = "from pkg.platforms.interface import Platform, PlatformEnum\n\n\nclass {name}(Platform):\n"
_OTHER += "    _enum = PlatformEnum.{member}\n"

EXTRA_CLASSES = [
    # Two unrelated NVIDIA-named classes: which one runs is not told by names, so NVIDIA
    # stays unknown (can be true and false); AMD still dispatches to RocmPlatform.
    pytest.param(
        "pkg/platforms/jetson.py",
        _OTHER.format(name="NvidiaJetsonPlatform", member="CPU"),
        "current_platform.is_cuda()",
        NV,
        NV | AMD,
        id="two-classes-claim-a-vendor",
    ),
    # A class outside the declaring package (a test double) does not count.
    pytest.param(
        "pkg/tests/fake.py",
        _OTHER.format(name="RocmTestPlatform", member="CUDA"),
        "current_platform.is_rocm()",
        AMD,
        NV,
        id="outside-the-package",
    ),
]


@pytest.mark.parametrize(("path", "source", "expr", "can_true", "can_false"), EXTRA_CLASSES)
def test_which_classes_count(
    ruleset: RuleSet,
    path: str,
    source: str,
    expr: str,
    can_true: set[str],
    can_false: set[str],
) -> None:
    admission = _admission(ruleset, expr, {path: source})
    assert set(admission.can_be_true) == can_true
    assert set(admission.can_be_false) == can_false


@pytest.mark.parametrize(
    ("name", "vendor"),
    [
        ("NvmlCudaPlatform", "nvidia"),
        ("CUDAPlatform", "nvidia"),
        ("NvidiaJetsonPlatform", "nvidia"),
        ("RocmPlatform", "amd"),
        ("HIPPlatform", "amd"),
        ("rocm_platform", "amd"),
        ("ChipPlatform", None),  # a word, not a substring: no "hip" here
        ("CpuPlatform", None),
        ("AmdCudaShim", None),  # named for two vendors: for neither
    ],
)
def test_class_named_for_a_vendor(name: str, vendor: str | None) -> None:
    from gatecheck.semantics.dispatch import serves_vendor

    assert [v for v in ("nvidia", "amd") if serves_vendor(name, v)] == ([vendor] if vendor else [])
