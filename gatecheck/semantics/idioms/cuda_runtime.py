"""cuda-python without torch: the runtime API's `cudaDeviceGetAttribute(attr, device)` with
`cudaDevAttrComputeCapabilityMajor` / `...Minor`, and the driver API's
`cuDeviceGetAttribute(attr, device)` with `CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR` /
`..._MINOR`, return `(err, part)`, the capability's major or minor (FlashInfer's cuDNN
frontend reads the SM the first way, the CuTe DSL's runtime the second). Other attributes
(SM count, memory) are not the generation's to decide."""

from __future__ import annotations

from collections.abc import Sequence

from gatecheck.config.model import Generation
from gatecheck.semantics.idioms._model import (
    NOT_MINE,
    Example,
    Idiom,
    Intrinsic,
    Noop,
    generations,
)
from gatecheck.semantics.values import UNKNOWN, ExternalRef, Value

_PARTS = {
    "cudaDevAttrComputeCapabilityMajor": 0,
    "cudaDevAttrComputeCapabilityMinor": 1,
    "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR": 0,
    "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR": 1,
}


def device_attribute(generation: Generation, args: Sequence[Value]) -> Value:
    which = args[0] if args else None
    if not isinstance(which, ExternalRef) or which.last not in _PARTS:
        return NOT_MINE
    if generation.vendor != "nvidia":
        return UNKNOWN  # no CUDA runtime there: the call fails, somehow
    # The error code is cudaSuccess on a working device, but not the generation's to say.
    return (UNKNOWN, generation.capability[_PARTS[which.last]])


_SOURCE = """
from cuda.bindings import runtime as cudart

def sm_via_cuda_bindings():
    attrs = cudart.cudaDeviceAttr
    err, major = cudart.cudaDeviceGetAttribute(attrs.cudaDevAttrComputeCapabilityMajor, 0)
    err, minor = cudart.cudaDeviceGetAttribute(attrs.cudaDevAttrComputeCapabilityMinor, 0)
    return major * 10 + minor
"""
_DRIVER_SOURCE = """
from cuda.bindings import driver

def check(result):
    if result[0].value:
        raise RuntimeError(result[0])
    return result[1]

def sm_via_driver(device):
    attr = driver.CUdevice_attribute
    get = driver.cuDeviceGetAttribute
    major = check(get(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device))
    minor = check(get(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device))
    return f"sm_{major}{minor}"
"""
_AMD = generations("gfx90a", "gfx942", "gfx950")

IDIOM = Idiom(
    name="CUDA runtime device attribute",
    calls=(
        Intrinsic("cudaDeviceGetAttribute", device_attribute, reads_arguments=True),
        Intrinsic("cuDeviceGetAttribute", device_attribute, reads_arguments=True),
    ),
    examples=(
        Example(
            "sm-from-parts",
            "sm_via_cuda_bindings() >= 110",
            generations("sm110", "sm120", "sm121") | _AMD,
            _SOURCE,
        ),
        Example(
            "major-only",
            "cudart.cudaDeviceGetAttribute(cudart.cudaDeviceAttr.cudaDevAttrComputeCapabilityMajor,"
            " 0)[1] == 9",
            generations("sm90") | _AMD,
            _SOURCE,
        ),
        Example(
            "driver-api-through-an-error-check",
            'sm_via_driver(0) in ("sm_120", "sm_121")',
            generations("sm120", "sm121") | _AMD,
            _DRIVER_SOURCE,
        ),
    ),
    noops=(
        Noop(
            "driver-sm-count",
            "driver.cuDeviceGetAttribute("
            "driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0)[1] > 100",
            "the SM count varies within a generation",
            _DRIVER_SOURCE,
        ),
        Noop(
            "sm-count",
            "cudart.cudaDeviceGetAttribute(cudart.cudaDeviceAttr.cudaDevAttrMultiProcessorCount,"
            " 0)[1] >= 132",
            "the SM count varies within a generation",
            _SOURCE,
        ),
        Noop(
            "error-code",
            "cudart.cudaDeviceGetAttribute(cudart.cudaDeviceAttr.cudaDevAttrComputeCapabilityMajor,"
            " 0)[0] == 0",
            "whether the call succeeds is the driver's, not the generation's",
            _SOURCE,
        ),
    ),
)
