"""Runtime platform dispatch: a module attribute declared with a class type and made at
runtime (vLLM's and sglang's `current_platform: Platform`, resolved by a module
__getattr__ that probes NVML/amdsmi) is an instance of the subclass serving the device's
vendor, told apart by its name (assumed); so is a value that is one of several classes'
instances, each named for a platform (DeepSpeed's `get_accelerator()`: a CUDA_Accelerator,
CPU_Accelerator or MLU_Accelerator, made by whichever branch the runtime probe takes)."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from astroid import nodes

from gatecheck.semantics import classes, replay
from gatecheck.semantics.reads import remembered
from gatecheck.semantics.values import InstanceRef, OneOf

if TYPE_CHECKING:
    from gatecheck.semantics.evaluator import Evaluator

PLATFORM_WORDS: dict[str, tuple[str, ...]] = {
    "nvidia": ("cuda", "nvidia"),
    "amd": ("rocm", "hip", "amd"),
}

# Platforms no generation of the registry is: a class named for one serves none.
OTHER_PLATFORM_WORDS = frozenset(
    {"cpu", "xpu", "npu", "mlu", "hpu", "mps", "tpu", "xla", "musa", "sdaa", "supa", "klxpu"}
    | {"neuron", "ascend", "habana", "gaudi", "ipu", "dcu", "corex", "maca", "metal"}
)

_NAME_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_CLASS_NAME = re.compile(r"^[ \t]*class[ \t]+(\w+)", re.MULTILINE)


def serves_vendor(class_name: str, vendor: str) -> bool:
    """Whether a class is named for this vendor, and for no other, by its words
    (`NvmlCudaPlatform`, `HIPPlatform`, `rocm_platform`; not `ChipPlatform`)."""
    words = _words(class_name)
    mine = not words.isdisjoint(PLATFORM_WORDS.get(vendor, ()))
    others = any(
        not words.isdisjoint(other_words)
        for other, other_words in PLATFORM_WORDS.items()
        if other != vendor
    )
    return mine and not others


def serves_another_platform(class_name: str) -> bool:
    """Whether a class is named for a platform no registry vendor is, and for no vendor
    (`CPU_Accelerator`, `MLU_Accelerator`; not `CUDA_Accelerator`)."""
    words = _words(class_name)
    return not words.isdisjoint(OTHER_PLATFORM_WORDS) and all(
        words.isdisjoint(w) for w in PLATFORM_WORDS.values()
    )


def _words(class_name: str) -> set[str]:
    return {w.lower() for w in _NAME_WORD.findall(class_name)}


def _named_for_a_platform(class_name: str) -> bool:
    words = _words(class_name)
    vendors = any(not words.isdisjoint(w) for w in PLATFORM_WORDS.values())
    return vendors or not words.isdisjoint(OTHER_PLATFORM_WORDS)


def served_options(ev: Evaluator, value: OneOf) -> Any:
    """`value` when it is one of instances of two classes or more, each named for a
    platform (and perhaps None: no branch taken), exactly one of them for the device's
    vendor: that class's instance (marked assumed); else `value` itself. Which class the
    runtime picks is read off the device's vendor, never off a generation. ROCm's
    PyTorch is the "cuda" device: with no class named for AMD, an AMD GPU gets the one
    named for CUDA (not for NVIDIA)."""
    instances = [o for o in value.options if type(o) is InstanceRef]
    if any(o is not None and type(o) is not InstanceRef for o in value.options):
        return value
    names = {id(o.cls): str(o.cls.name) for o in instances}
    if len(names) < 2 or not all(_named_for_a_platform(n) for n in names.values()):
        return value
    ev.reads.device = True
    if ev.trace is not None:
        ev.trace.append(replay.OPAQUE)
    vendor = ev.generation.vendor
    served = [o for o in instances if serves_vendor(names[id(o.cls)], vendor)]
    if not served and vendor == "amd":
        served = [o for o in instances if _words(names[id(o.cls)]) & {"cuda", "nvidia"} == {"cuda"}]
    if len({id(o.cls) for o in served}) != 1:
        return value
    chosen = served[0]
    ev.reads.assumed.add(
        f"one of {len(names)} platforms' classes is taken to be a '{chosen.cls.name}' on "
        f"{vendor} (runtime platform dispatch, by class name)"
    )
    return chosen


def declared(ev: Evaluator, cls: nodes.ClassDef) -> InstanceRef:
    """An instance declared by its type only (`current_platform: Platform`): when
    the classes below `cls` in its own package name exactly one most general class
    for the device's vendor (CudaPlatformBase, RocmPlatform), that class's instance,
    made without arguments (marked assumed); else an instance of `cls`."""
    vendors = {g.vendor for g in ev.registry.generations}
    if not any(vendor_class(ev, cls, vendor) is not None for vendor in vendors):
        return InstanceRef(cls)
    # Which class it is depends on the vendor (even where no class is found).
    ev.reads.device = True
    if ev.trace is not None:
        ev.trace.append(replay.OPAQUE)
    served = vendor_class(ev, cls, ev.generation.vendor)
    if served is None:
        return InstanceRef(cls)
    ev.reads.assumed.add(
        f"'{cls.name}' is taken to be a '{served.name}' on {ev.generation.vendor} "
        "(runtime platform dispatch, by class name)"
    )
    return InstanceRef(served, defaults_hold=True)


def vendor_class(ev: Evaluator, cls: nodes.ClassDef, vendor: str) -> nodes.ClassDef | None:
    # A cycle through the subclasses' modules: no dispatch.
    key = ("vendor-class", id(cls), vendor)
    return remembered(ev, key, lambda: _vendor_class(ev, cls, vendor), None)


def _vendor_class(ev: Evaluator, cls: nodes.ClassDef, vendor: str) -> nodes.ClassDef | None:
    below = [k for k in _subclasses(ev, cls) if k is not cls]
    serving = [k for k in below if serves_vendor(str(k.name), vendor)]
    general = [
        k
        for k in serving
        if not any(a is not k and any(a is b for b in serving) for a in classes.mro(ev, k))
    ]
    return general[0] if len(general) == 1 else None


def _subclasses(ev: Evaluator, cls: nodes.ClassDef) -> list[nodes.ClassDef]:
    """Classes named for some vendor, defined at the top of modules in the folder of
    `cls`'s module (and below), whose MRO holds `cls`. Only files that define such a
    name are built."""
    found: list[nodes.ClassDef] = remembered(
        ev, ("subclasses", id(cls)), lambda: _find_subclasses(ev, cls), []
    )
    return list(found)


def _find_subclasses(ev: Evaluator, cls: nodes.ClassDef) -> list[nodes.ClassDef]:
    module = cls.root()
    if not isinstance(module, nodes.Module) or not module.file:
        return []
    prefix = os.path.join(os.path.dirname(str(module.file)), "")
    vendors = {g.vendor for g in ev.registry.generations}
    found: list[nodes.ClassDef] = []
    for path in ev.project.files_below(prefix):
        with ev.project.scanning():  # read as the folder's (files_below), not per file
            text = ev.project.text_of(path)
        names = _CLASS_NAME.findall(text or "")
        if not any(serves_vendor(n, v) for n in names for v in vendors):
            continue
        candidate = ev.project.module_at(path)
        if candidate is None:
            continue
        for stmt in candidate.body:
            if (
                isinstance(stmt, nodes.ClassDef)
                and stmt.bases
                and any(serves_vendor(str(stmt.name), v) for v in vendors)
                and any(k is cls for k in classes.mro(ev, stmt))
            ):
                found.append(stmt)
    return found
