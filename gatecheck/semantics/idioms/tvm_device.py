"""Apache TVM's view of the GPU, as TVM-based kernel compilers (TileLang, MLC) read it:
`tvm.cuda(n)` (also `tvm.runtime.cuda(n)`, `tvm.gpu(n)`, `tvm.device("cuda", n)`) is
the CUDA device, whose `compute_version` is "major.minor" ("9.0", "12.0") and whose
`exist` is true; `tvm.target.Target("cuda")` (a kind with no `-arch`, as a string or a
`{"kind": "cuda"}` dict) is a CUDA target whose `arch` TVM fills in from that device:
"sm_" and the capability as an integer ("sm_90", "sm_120"), `kind.name` "cuda"; its
`attrs` map holds the same arch (`attrs["arch"]`, `attrs.get("arch", ...)`). A parameter
annotated `Target` is taken to be the device's target as `Target.current()` is
(conventions.py).

`Target.current()` is the target of the caller's `with target:` scope, or None: where
code reads it for the device (TileLang's `get_target_compute_version`: the scope's
target, else `tvm.cuda(0)`), it is taken to be the device's CUDA target, marked assumed
(a cross-compiling caller may set another): "sm_90" as TVM fills it in, or "sm_90a" as
TileLang's own `determine_target` writes it from Hopper on (values.OneOf: a test is
known where the two forms agree).

Unknown: the CUDA device and a CUDA target's arch on an AMD part (no CUDA device there:
TVM's default arch is not read), a target given its arch (`Target("cuda -arch=sm_80")`:
the build's choice, not the device's; a dict's "arch" is what the dict says), other
kinds and tags."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from gatecheck.config.model import Generation
from gatecheck.semantics.idioms._model import NOT_MINE, Example, Idiom, Intrinsic, Noop, generations
from gatecheck.semantics.values import UNKNOWN, OneOf, Value


@dataclass(frozen=True)
class TvmDevice:
    """`tvm.cuda(n)` on a part of one generation."""

    compute_version: Value
    exist: Value


@dataclass(frozen=True)
class TvmKind:
    name: str


@dataclass(frozen=True)
class TvmTarget:
    """A `tvm.target.Target` of a kind, with its arch (a value: UNKNOWN where not known)."""

    kind: TvmKind
    arch: Value


@dataclass(frozen=True)
class TvmAttrs:
    """A target's `attrs` map, as TileLang reads its fields: `attrs["arch"]` and
    `attrs.get("arch", default)` are the target's arch; any other key is not read."""

    arch: Value


# The class a parameter annotated with it holds a target of (conventions.py), read as
# the scope's current target is.
TARGET_CLASSES = frozenset({"tvm.target.Target", "tvm.target.target.Target"})
CURRENT_TARGET = "tvm.target.Target.current"


def cuda_device(generation: Generation, _args: Sequence[Value] = ()) -> TvmDevice:
    if generation.vendor != "nvidia":
        return TvmDevice(UNKNOWN, UNKNOWN)
    major, minor = generation.capability
    return TvmDevice(f"{major}.{minor}", True)


def device(generation: Generation, args: Sequence[Value]) -> Value:
    """`tvm.device("cuda", n)`: the CUDA device; another kind is not read."""
    if args and args[0] in ("cuda", "gpu"):
        return cuda_device(generation)
    return NOT_MINE


def _device_arch(generation: Generation) -> Value:
    if generation.vendor != "nvidia":
        return UNKNOWN
    major, minor = generation.capability
    return f"sm_{major * 10 + minor}"


def target(generation: Generation, args: Sequence[Value]) -> Value:
    """`Target("cuda")` / `Target({"kind": "cuda", ...})`: the arch is the device's
    unless given; anything else (a tag, another kind, options not read) is not read."""
    if not args:
        return NOT_MINE
    spec = args[0]
    if isinstance(spec, dict):
        if spec.get("kind") != "cuda" or not all(isinstance(k, str) for k in spec):
            return NOT_MINE
        arch = spec["arch"] if "arch" in spec else _device_arch(generation)
        return TvmTarget(TvmKind("cuda"), arch)
    if not isinstance(spec, str):
        return NOT_MINE
    try:
        words = shlex.split(spec)
    except ValueError:
        return NOT_MINE
    if not words or words[0] != "cuda":
        return NOT_MINE
    if any(word.startswith(("-arch", "--arch")) for word in words[1:]):
        return NOT_MINE  # the build's arch: a constant of the caller's, not read here
    return TvmTarget(TvmKind("cuda"), _device_arch(generation))


def current_target(generation: Generation, _args: Sequence[Value] = ()) -> Value:
    """`Target.current()`, taken to be the device's CUDA target (Intrinsic.assumed)."""
    arch = _device_arch(generation)
    if arch is UNKNOWN:
        return UNKNOWN
    if generation.capability[0] >= 9:
        arch = OneOf((arch, f"{arch}a"))
    return TvmTarget(TvmKind("cuda"), arch)


_CURRENT = "the compile target of the caller's scope taken to be the device's"


def attribute(receiver: object, name: str) -> Value:
    if isinstance(receiver, TvmDevice) and name in ("compute_version", "exist"):
        return getattr(receiver, name)
    if isinstance(receiver, TvmTarget) and name in ("kind", "arch"):
        return getattr(receiver, name)
    if isinstance(receiver, TvmTarget) and name == "attrs":
        return UNKNOWN if receiver.arch is UNKNOWN else TvmAttrs(receiver.arch)
    if isinstance(receiver, TvmAttrs) and name == "get":
        return partial(_attrs_get, receiver)
    if isinstance(receiver, TvmKind) and name == "name":
        return receiver.name
    return UNKNOWN


def _attrs_get(attrs: TvmAttrs, key: object, default: object = None) -> Value:
    return attrs.arch if key == "arch" else UNKNOWN


def attrs_item(receiver: TvmAttrs, key: object) -> Value:
    return receiver.arch if key == "arch" else NOT_MINE


_SOURCE = """\
import tvm
from tvm.target import Target

def version():
    return tvm.cuda(0).compute_version

def compute_version(target=None):
    target = target or Target.current()
    if target and target.arch:
        digits = target.arch.split("_")[1].rstrip("af")
        return digits[:-1] + "." + digits[-1]
    return tvm.cuda(0).compute_version

def parsed():
    return tuple(int(x) for x in tvm.runtime.cuda(0).compute_version.split("."))
"""
_AMD = ("gfx90a", "gfx942", "gfx950")
_FROM_SM90 = ("sm90", "sm100", "sm103", "sm110", "sm120", "sm121")

IDIOM = Idiom(
    name="TVM device and target",
    calls=(
        Intrinsic("tvm.cuda", cuda_device),
        Intrinsic("tvm.gpu", cuda_device),
        Intrinsic("tvm.runtime.cuda", cuda_device),
        Intrinsic("tvm.runtime.ndarray.cuda", cuda_device),
        Intrinsic("tvm.device", device, reads_arguments=True),
        Intrinsic("tvm.runtime.device", device, reads_arguments=True),
        Intrinsic("tvm.target.Target", target, reads_arguments=True),
        Intrinsic(CURRENT_TARGET, current_target, assumed=_CURRENT),
    ),
    value_attributes=(
        (TvmDevice, attribute),
        (TvmTarget, attribute),
        (TvmKind, attribute),
        (TvmAttrs, attribute),
    ),
    value_items=((TvmAttrs, attrs_item),),
    examples=(
        Example("compute-version", 'version() == "9.0"', generations("sm90", *_AMD), _SOURCE),
        Example("parsed-version", "parsed() >= (9, 0)", generations(*_FROM_SM90, *_AMD), _SOURCE),
        Example(
            "device-by-kind",
            'tvm.device("cuda", 0).compute_version.startswith("12.")',
            generations("sm120", "sm121", *_AMD),
            _SOURCE,
        ),
        Example(
            "target-arch",
            'Target("cuda").arch in ("sm_100", "sm_103")',
            generations("sm100", "sm103", *_AMD),
            _SOURCE,
        ),
        Example(
            "target-dict-arch",
            'Target({"kind": "cuda"}).arch == "sm_120"',
            generations("sm120", *_AMD),
            _SOURCE,
        ),
        Example(
            "current-target-either-form",
            'Target.current().arch.split("_")[1].rstrip("af") == "120"',
            generations("sm120", *_AMD),
            _SOURCE,
            assumed=True,
        ),
        Example(
            "current-target-one-form",
            'Target.current().arch == "sm_90a"',
            generations("sm90", *_AMD),
            _SOURCE,
            assumed=True,
        ),
        Example(
            "current-target-or-device",
            'compute_version() == "10.3"',
            generations("sm103", *_AMD),
            _SOURCE,
            assumed=True,
        ),
        Example("no-cuda-device", "not tvm.cuda(0).exist", generations(*_AMD), _SOURCE),
        Example(
            "attrs-item",
            'Target("cuda").attrs["arch"] == "sm_120"',
            generations("sm120", *_AMD),
            _SOURCE,
        ),
        Example(
            "attrs-get",
            'int(str(Target.current().attrs.get("arch", "sm_0")).split("_")[1].rstrip("af"))'
            " >= 100",
            generations("sm100", "sm103", "sm110", "sm120", "sm121", *_AMD),
            _SOURCE,
            assumed=True,
        ),
    ),
    noops=(
        Noop(
            "target-with-arch",
            'Target("cuda -arch=sm_80").arch == "sm_80"',
            "a target given its arch is the build's choice, not the device's",
            _SOURCE,
        ),
        Noop(
            "other-kind",
            'Target("llvm").arch == "sm_90"',
            "a kind other than cuda is not read",
            _SOURCE,
        ),
        Noop(
            "attrs-other-key",
            'Target("cuda").attrs.get("max_num_threads", 1024) == 1024',
            "a target's other attributes are not read",
            _SOURCE,
        ),
        Noop(
            "rocm-device",
            'tvm.rocm(0).compute_version == "9.4"',
            "TVM's ROCm device is not read",
            _SOURCE,
        ),
    ),
)
