"""Triton's `driver.active.utils.get_device_properties(i)`: a dict whose
`["max_shared_mem"]` is the shared memory a block may opt in to on the generation
(rules/generations.yaml). Triton kernels size their tiles and stages by it
(`if max_shared_mem >= 228 * 1024: BLOCK_K = 128`), which is how a Hopper-tuned path
quietly leaves consumer Blackwell's 99 KB out. Its other keys (SM count, clocks, warp
size) are not the generation's to decide."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gatecheck.config.model import Generation
from gatecheck.semantics.idioms._model import (
    NOT_MINE,
    Example,
    Idiom,
    Intrinsic,
    Noop,
    generations,
)
from gatecheck.semantics.values import TritonDeviceProps, Value


def device_properties(generation: Generation, _args: Sequence[Value] = ()) -> TritonDeviceProps:
    return TritonDeviceProps(generation.smem_per_block_optin)


def item(receiver: Any, key: Any) -> Value:
    if key == "max_shared_mem" and receiver.max_shared_mem is not None:
        return receiver.max_shared_mem
    return NOT_MINE


_SOURCE = "import triton\nprops = triton.runtime.driver.active.utils.get_device_properties(0)"
# Their shared memory is not in the registry: unknown there, so possibly true.
_AMD = generations("gfx90a", "gfx942", "gfx950")

IDIOM = Idiom(
    name="Triton device properties",
    calls=(Intrinsic("driver.active.utils.get_device_properties", device_properties),),
    value_items=((TritonDeviceProps, item),),
    examples=(
        Example(
            "max-shared-mem",
            'props["max_shared_mem"] >= 200 * 1024',
            generations("sm90", "sm100", "sm103", "sm110") | _AMD,
            _SOURCE,
        ),
        Example(
            "each-device",
            "[triton.runtime.driver.active.utils.get_device_properties(i)['max_shared_mem']"
            " for i in range(2)][0] <= 101376",
            generations("sm70", "sm75", "sm86", "sm89", "sm120", "sm121") | _AMD,
            "import triton",
        ),
    ),
    noops=(
        Noop(
            "sm-count",
            'props["multiprocessor_count"] >= 132',
            "the SM count varies within a generation",
            _SOURCE,
        ),
    ),
)
