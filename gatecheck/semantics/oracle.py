"""What a generation decides about the device, for code gatecheck cannot read.

Two sources, in order of trust:
1. device intrinsics: torch/triton/pynvml calls whose value is the device's capability
   (proven: their meaning is fixed by the framework);
2. naming conventions and the rules' vocabulary for predicates without a readable body
   (assumed: results that use them are marked as such).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gatecheck.config.model import Generation, Registry, VocabularyEntry
from gatecheck.semantics.values import UNKNOWN, Capability, DeviceProps, TritonTarget

_GCN_ARCH = {"gfx90a": "gfx90a", "gfx942": "gfx942", "gfx950": "gfx950"}


def capability(gen: Generation) -> Capability:
    return Capability(gen.capability)


def device_props(gen: Generation) -> DeviceProps:
    gcn = gen.name if gen.vendor == "amd" else None
    return DeviceProps(gen.major, gen.minor, gcn)


def triton_target(gen: Generation) -> TritonTarget:
    if gen.vendor == "amd":
        return TritonTarget("hip", gen.name)
    return TritonTarget("cuda", gen.sm_version)


# Calls into frameworks whose result the generation decides, by dotted-name suffix.
_CAPABILITY_CALLS = (
    "torch.cuda.get_device_capability",
    "cuda.get_device_capability",
    "pynvml.nvmlDeviceGetCudaComputeCapability",
)
_PROPERTIES_CALLS = ("torch.cuda.get_device_properties", "cuda.get_device_properties")
_TRITON_TARGET = "get_current_target"
# On a device of any registry generation, torch sees a GPU (CUDA or ROCm build alike).
_GPU_PRESENT_CALLS = ("torch.cuda.is_available", "cuda.is_available")
# ...and no other accelerator backend claims it.
_OTHER_DEVICE_CALLS = tuple(
    f"torch.{backend}.is_available"
    for backend in ("xpu", "hpu", "npu", "mps", "mlu", "musa", "backends.mps")
)


def intrinsic_call(dotted: str, gen: Generation) -> Any | None:
    """The value of calling an external function, or None when it is not an intrinsic."""
    if any(dotted == c or dotted.endswith("." + c) for c in _CAPABILITY_CALLS):
        return capability(gen)
    if any(dotted == c or dotted.endswith("." + c) for c in _PROPERTIES_CALLS):
        return device_props(gen)
    if dotted.endswith(_TRITON_TARGET):
        return triton_target(gen)
    if any(dotted == c or dotted.endswith("." + c) for c in _GPU_PRESENT_CALLS):
        return True
    if any(dotted.endswith(c) for c in _OTHER_DEVICE_CALLS):
        return False
    return None


def intrinsic_attribute(dotted: str, gen: Generation) -> Any | None:
    """Module attributes the vendor decides: torch.version.cuda / torch.version.hip."""
    if dotted.endswith("torch.version.cuda"):
        return None if gen.vendor == "amd" else UNKNOWN
    if dotted.endswith("torch.version.hip"):
        return None if gen.vendor == "nvidia" else UNKNOWN
    return None


_NOT_INTRINSIC = object()


def intrinsic_attribute_or_sentinel(dotted: str, gen: Generation) -> Any:
    if dotted.endswith(("torch.version.cuda", "torch.version.hip")):
        return intrinsic_attribute(dotted, gen)
    return _NOT_INTRINSIC


def is_not_intrinsic(value: Any) -> bool:
    return value is _NOT_INTRINSIC


# -- naming conventions (assumed) ----------------------------------------------------------

# Method/function names that conventionally return the capability or the SM version
# (abstract platform methods, compiled helpers).
_CAPABILITY_NAMES = {"get_device_capability", "get_cuda_capability", "device_capability"}
_SM_VERSION_NAMES = {"get_sm_version", "get_device_sm", "get_sm", "sm_version", "get_cuda_arch"}

_FAMILY_MAJORS: dict[str, tuple[str, Sequence[int]]] = {
    "volta": ("nvidia", (7,)),
    "turing": ("nvidia", (7,)),
    "ampere": ("nvidia", (8,)),
    "ada": ("nvidia", (8,)),
    "hopper": ("nvidia", (9,)),
    "blackwell": ("nvidia", (10, 11, 12)),
}
_EXACT_FAMILY = {"volta": (7, 0), "turing": (7, 5), "ada": (8, 9)}
_AMD_PRODUCTS = {
    "mi200": "gfx90a",
    "mi210": "gfx90a",
    "mi250": "gfx90a",
    "mi300": "gfx942",
    "mi325": "gfx942",
    "mi350": "gfx950",
    "mi355": "gfx950",
}

_SM_NAME = re.compile(r"(?:^|_)sm_?(\d{2,3})(a|f|x)?(?:_|$)")
_GFX_NAME = re.compile(r"(?:^|_)(gfx\d[0-9a-f]*)(?:_|$)")


@dataclass(frozen=True)
class Convention:
    kind: str  # "predicate" | "capability" | "sm_version"
    admits: frozenset[str] = frozenset()
    why: str = ""


def _sm_generations(digits: str, suffix: str | None, registry: Registry) -> frozenset[str]:
    number = int(digits)
    major, minor = divmod(number, 10)
    nvidia = [g for g in registry.generations if g.vendor == "nvidia"]
    if suffix == "a" or minor != 0:
        # "a" (arch-specific) names and an explicit minor pin the exact capability.
        return frozenset(g.name for g in nvidia if g.capability == (major, minor))
    return frozenset(g.name for g in nvidia if g.major == major)


def convention_for(
    name: str, registry: Registry, vocabulary: Sequence[VocabularyEntry] = ()
) -> Convention | None:
    """What a name promises when no body can be read. `name` may be dotted."""
    bare = name.rsplit(".", 1)[-1]
    for entry in vocabulary:
        if fnmatch.fnmatchcase(name, entry.pattern) or fnmatch.fnmatchcase(bare, entry.pattern):
            return Convention("predicate", entry.admits, f"vocabulary '{entry.pattern}'")
    lowered = bare.lower().lstrip("_")
    if lowered in _CAPABILITY_NAMES:
        return Convention("capability", why=f"'{bare}' conventionally returns the capability")
    if lowered in _SM_VERSION_NAMES:
        return Convention("sm_version", why=f"'{bare}' conventionally returns the SM version")
    if not lowered.startswith(("is_", "has_", "supports_", "use_", "check_")):
        return None
    sm = _SM_NAME.search(lowered)
    if sm:
        admits = _sm_generations(sm.group(1), sm.group(2), registry)
        return Convention("predicate", admits, f"name '{bare}' (naming convention)")
    gfx = _GFX_NAME.search(lowered)
    if gfx:
        prefix = gfx.group(1)
        admits = frozenset(g.name for g in registry.generations if g.name.startswith(prefix))
        return Convention("predicate", admits, f"name '{bare}' (naming convention)")
    for product, gfx_name in _AMD_PRODUCTS.items():
        if product in lowered:
            admits = frozenset({gfx_name}) if gfx_name in registry else frozenset()
            return Convention("predicate", admits, f"name '{bare}' (naming convention)")
    for family, (vendor, majors) in _FAMILY_MAJORS.items():
        if re.search(rf"(?:^|_){family}(?:_|$)", lowered):
            exact = _EXACT_FAMILY.get(family)
            admits = frozenset(
                g.name
                for g in registry.generations
                if g.vendor == vendor and (g.capability == exact if exact else g.major in majors)
            )
            return Convention("predicate", admits, f"name '{bare}' (naming convention)")
    return None


# -- runtime platform dispatch (assumed) -----------------------------------------------------

# A module attribute declared with a class type and made at runtime (vLLM's and sglang's
# `current_platform: Platform`, resolved by a module __getattr__ that probes NVML/amdsmi) is
# an instance of the subclass serving the device's vendor, told apart by its name.
PLATFORM_WORDS: dict[str, tuple[str, ...]] = {
    "nvidia": ("cuda", "nvidia"),
    "amd": ("rocm", "hip", "amd"),
}


_NAME_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def serves_vendor(class_name: str, vendor: str) -> bool:
    """Whether a class is named for this vendor, and for no other, by its words
    (`NvmlCudaPlatform`, `HIPPlatform`, `rocm_platform`; not `ChipPlatform`)."""
    words = {w.lower() for w in _NAME_WORD.findall(class_name)}
    mine = not words.isdisjoint(PLATFORM_WORDS.get(vendor, ()))
    others = any(
        not words.isdisjoint(other_words)
        for other, other_words in PLATFORM_WORDS.items()
        if other != vendor
    )
    return mine and not others
