"""What a predicate's name promises where no body can be read (semantics/conventions.py):
never narrower than the bodies such names stand for. FlashInfer's is_sm100a_supported
tests major 10 (sm103 passes), so an "a" suffix on a minor of 0 names the family."""

from __future__ import annotations

import pytest

from gatecheck.semantics.admitted import admission_of, admitted

ALL_NVIDIA = ("sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm90", "sm100", "sm103", "sm110")
ALL_NVIDIA += ("sm120", "sm121")
ALL = sorted((*ALL_NVIDIA, "gfx90a", "gfx942", "gfx950"))

CASES = [
    ("is_sm100a_supported", ["sm100", "sm103"]),
    ("is_sm120a_supported", ["sm120", "sm121"]),
    ("is_sm90a_supported", ["sm90"]),
    ("is_sm100f_supported", ["sm100", "sm103"]),
    ("is_sm100_supported", ["sm100", "sm103"]),
    # Noops: an explicit minor pins it.
    ("is_sm103a_supported", ["sm103"]),
    ("is_sm121_supported", ["sm121"]),
    # The predicate's verb need not open the name: a subject or modal before it.
    ("target_is_volta", ["sm70"]),
    ("device_is_hopper", ["sm90"]),
    ("can_use_sm90_kernels", ["sm90"]),
    ("target_is_gfx950", ["gfx950"]),
    # Noops: no verb (a word that only contains one), or a verb with no family after it.
    ("this_sm90_kernel", ALL),
    ("analysis_sm90", ALL),
    ("target_has_async_copy", ALL),
    # Noop: the generation before the verb names what the verb is said of (a geometry).
    ("sm120_producer_geometry_is_valid", ALL),
    # A compiled library's CamelCase names, in words (TileLang's FFI `TargetIsSM120`).
    ("TargetIsSM120", ["sm120", "sm121"]),
    ("TargetIsHopper", ["sm90"]),
    # Noops: no family after the verb; the capability's names stay snake_case only
    # (`DeviceCapability(9, 0)` is a class made from its arguments, not the device's).
    ("TargetHasBulkCopy", ALL),
    ("DeviceCapability", ALL),
]


@pytest.mark.parametrize(("name", "expected"), CASES)
def test_a_predicate_read_by_its_name(name: str, expected: list[str]) -> None:
    source = f"from extlib.utils import {name}\n"
    assert sorted(admitted(source, f"{name}()")) == expected


# The compiled library's names here promise nothing (`TargetQuery`): what is read is the
# forwarding wrapper's name (a CamelCase one that promises is read by itself: CASES).
FORWARDS = """\
import os

from extlib import _ffi_api


def target_is_volta(target):
    return _ffi_api.TargetQuery(target)


def is_hopper(target):
    \"\"\"Whether the target is Hopper.\"\"\"
    return _ffi_api.TargetQuery(target, 0)


def is_blackwell(target):
    return _ffi_api.TargetQuery(target) and target.ok


def is_sm90(target):
    return _ffi_api.TargetQuery(target.arch)


def use_sm100_kernels():
    return _ffi_api.Query()


def _native():
    from extlib import _lib

    return _lib


def _settings():
    return {"lib": _ffi_api}


def target_is_sm120(target):
    return _native().TargetQuery(target)


def target_is_sm100(target):
    return _settings().TargetQuery(target)


class _Flag:
    def __init__(self, name):
        self.name = name

    def get(self):
        return os.environ.get(self.name) == "1"


IS_BLACKWELL = _Flag("IS_BLACKWELL")


def is_blackwell_system():
    return IS_BLACKWELL.get()
"""


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("target_is_volta(t)", ["sm70"]),
        ("is_hopper(t)", ["sm90"]),
        ("use_sm100_kernels()", ["sm100", "sm103"]),
        # The library handed back by a helper that imports it.
        ("target_is_sm120(t)", ["sm120", "sm121"]),
        # Noop: the helper hands back something else (a dict), not a module.
        ("target_is_sm100(t)", ALL),
        # Noops: the body computes something besides the call (its name is not all
        # that is known of it), or hands on more than its own parameters.
        ("is_blackwell(t)", ALL),
        ("is_sm90(t)", ALL),
        # Noop: the call's body was read (an environment flag's), and said unknown.
        ("is_blackwell_system()", ALL),
    ],
)
def test_a_body_that_only_forwards_to_an_unread_call_is_read_by_its_name(
    expr: str, expected: list[str]
) -> None:
    assert sorted(admitted(FORWARDS, expr)) == expected


def test_a_module_filled_at_import_is_not_read() -> None:
    # tilelang's `_ffi_api` module: a compiled library binds its names when it is
    # imported; no body of `TargetQuery` is in the project.
    source = "from pkg import _ffi_api\n\n\ndef target_is_volta(t):\n    return _ffi_api.TargetQuery(t)\n"
    ffi = "import tvm_ffi\n\ntvm_ffi.init_ffi_api('tl', __name__)\n"
    modules = {"pkg": "", "pkg._ffi_api": ffi}
    admission = admission_of(source, "target_is_volta(x)", modules=modules)
    assert sorted(admission.can_be_true) == ["sm70"]
    assert admission.assumed == {"name 'target_is_volta' (naming convention)"}


DEVICE_INTERFACE = """\
def get_interface_for_device(device):
    return _INTERFACES[device]


_INTERFACES = {}
"""


@pytest.mark.parametrize(
    ("source", "expr", "expected"),
    [
        pytest.param(
            DEVICE_INTERFACE,
            "get_interface_for_device(d).get_device_properties(d).major >= 10",
            ["sm100", "sm103", "sm110", "sm120", "sm121"],
            id="properties-of-a-device-interface",  # PyTorch inductor's DeviceProperties
        ),
        pytest.param(
            "from ext import iface\n",
            "iface.get_device_properties(0).minor == 9",
            ["sm89"],
            id="properties-of-an-unread-library",
        ),
        # noop: a body that can be read is read, not the name (a stub's, `return None`,
        # is the convention's: an abstract platform method)
        pytest.param(
            "class Iface:\n    def get_device_properties(self, d):\n        return 'cpu'\n",
            "Iface().get_device_properties(0) == 'cpu'",
            ["gfx90a", "gfx942", "gfx950", *ALL_NVIDIA],
            id="noop-a-readable-body",
        ),
    ],
)
def test_properties_read_by_the_name(source: str, expr: str, expected: list[str]) -> None:
    assert sorted(admitted(source, expr)) == sorted(expected)


# Another accelerator's runtime answers for its own device, not a registry generation's:
# no convention there (unknown: every generation, no row). The same calls on torch.cuda
# and on a project's own helper keep theirs.
OTHER_BACKENDS = [
    ("torch.musa.get_device_capability()[0] >= 9", ALL),
    ("torch.npu.get_device_capability()[0] >= 9", ALL),
    ("torch.xpu.get_device_properties(0).major >= 9", ALL),
    ("torch_npu.npu.get_device_capability()[0] >= 9", ALL),
    ('f"{torch.musa.get_device_properties(0).major}" >= "9"', ALL),
    # Noops: CUDA's own runtime, and a helper of an outside package named like one.
    ("torch.cuda.get_device_capability()[0] >= 12", ["sm120", "sm121"]),
    ("extlib.get_device_capability()[0] >= 12", ["sm120", "sm121"]),
]


@pytest.mark.parametrize(("expr", "expected"), OTHER_BACKENDS)
def test_another_backends_device_promises_nothing(expr: str, expected: list[str]) -> None:
    source = "import torch\nimport torch_npu\nimport extlib\n"
    assert sorted(admitted(source, expr)) == expected
