"""What a predicate's name promises where no body can be read (semantics/conventions.py):
never narrower than the bodies such names stand for. FlashInfer's is_sm100a_supported
tests major 10 (sm103 passes), so an "a" suffix on a minor of 0 names the family."""

from __future__ import annotations

import pytest

from gatecheck.semantics.admitted import admitted

ALL_NVIDIA = ("sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm90", "sm100", "sm103", "sm110")
ALL_NVIDIA += ("sm120", "sm121")

CASES = [
    ("is_sm100a_supported", ["sm100", "sm103"]),
    ("is_sm120a_supported", ["sm120", "sm121"]),
    ("is_sm90a_supported", ["sm90"]),
    ("is_sm100f_supported", ["sm100", "sm103"]),
    ("is_sm100_supported", ["sm100", "sm103"]),
    # Noops: an explicit minor pins it.
    ("is_sm103a_supported", ["sm103"]),
    ("is_sm121_supported", ["sm121"]),
]


@pytest.mark.parametrize(("name", "expected"), CASES)
def test_a_predicate_read_by_its_name(name: str, expected: list[str]) -> None:
    source = f"from extlib.utils import {name}\n"
    assert sorted(admitted(source, f"{name}()")) == expected


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
