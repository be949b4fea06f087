"""The capability of every device of the machine, gathered by a comprehension:
`min(get_device_capability(i) for i in range(device_count()))` (the oldest device decides),
`tuple(... for i in ...)` then `120 not in caps` or `any(c >= 100 for c in caps)`, or
`sorted(...)[-1]`. A device is one generation, and so is each device of the machine the
condition is evaluated for: every item is that generation's capability, and there is at
least one. The comprehension's item must use the loop's name and be read from the device
(a per-device query whose answer the index does not change); the value is
values.EachDevice, and a set of it is that one item (`{major for ...}`: `len(...) == 1`,
`next(iter(majors))`, unsloth's FlashAttention choice). The semantics is in expressions
(_over_devices, an item, `in`, a set comprehension) and builtin_calls (min, max, any,
all, sorted, tuple, set, iter and next; a `key`, `reverse` or `default` orders or picks
only); this module carries its examples."""

from __future__ import annotations

from gatecheck.semantics.idioms._model import Example, Idiom, Noop, generations

_HELPERS = """\
import torch

def device_count():
    return torch.cuda.device_count()

def min_capability():
    return min(torch.cuda.get_device_capability(i) for i in range(device_count()))

def all_capabilities():
    return tuple(torch.cuda.get_device_capability(i) for i in range(device_count()))

def all_sms():
    return [major * 10 + minor for major, minor in all_capabilities()]

def newest_capability():
    return sorted(torch.cuda.get_device_capability(i) for i in range(device_count()))[-1]

def any_blackwell():
    return any(cap[0] >= 10 for cap in all_capabilities())

def index_filtered(wanted):
    return [torch.cuda.get_device_capability(i) for i in range(device_count()) if i in wanted]

def names_only():
    return [str(i) for i in range(device_count())]

def majors():
    return {torch.cuda.get_device_capability(i)[0] for i in range(device_count())}
"""

_NVIDIA_FROM_SM90 = ("sm90", "sm100", "sm103", "sm110", "sm120", "sm121")
_ROCM = ("gfx90a", "gfx942", "gfx950")

IDIOM = Idiom(
    name="the capability of every device",
    examples=(
        Example(
            "min-over-devices",
            "min_capability() < (9, 0)",
            generations("sm70", "sm75", "sm80", "sm86", "sm87", "sm89"),
            _HELPERS,
        ),
        Example(
            "not-in-the-devices-capabilities",
            "(12, 0) in all_capabilities()",
            generations("sm120"),
            _HELPERS,
        ),
        Example(
            "any-over-the-tuple",
            "any_blackwell()",
            generations("sm100", "sm103", "sm110", "sm120", "sm121"),
            _HELPERS,
        ),
        Example(
            "sorted-then-last",
            "newest_capability() >= (9, 0)",
            generations(*_NVIDIA_FROM_SM90, *_ROCM),
            _HELPERS,
        ),
        Example(
            "sorted-by-a-key",
            "sorted(all_capabilities(), key=lambda c: c[0], reverse=True)[0] >= (9, 0)",
            generations(*_NVIDIA_FROM_SM90, *_ROCM),
            _HELPERS,
        ),
        Example(
            "unpacked-per-device",
            "120 in all_sms()",
            generations("sm120"),
            _HELPERS,
        ),
        Example(
            "set-of-the-devices-majors",
            "len(majors()) == 1 and majors() == {12}",
            generations("sm120", "sm121"),
            _HELPERS,
        ),
        Example(
            "the-one-major",
            "next(iter(majors())) == 10",
            generations("sm100", "sm103"),
            _HELPERS,
        ),
        Example(
            "set-of-the-capabilities",
            "(9, 0) in set(all_capabilities())",
            generations("sm90", "gfx90a"),
            _HELPERS,
        ),
    ),
    noops=(
        Noop(
            "filtered-by-an-unknown-test",
            "(12, 0) in index_filtered(WANTED)",
            "a filter may leave no device: whether the sequence has an item is unknown",
            _HELPERS,
        ),
        Noop(
            "items-not-read-from-the-device",
            "'0' in names_only()",
            "an item the device does not decide is not one value for every item",
            _HELPERS,
        ),
        Noop(
            "a-keyword-that-is-no-ordering",
            "sorted(all_capabilities(), cmp=None)[0] >= (9, 0)",
            "sorted() takes no `cmp`: the call raises, no value",
            _HELPERS,
        ),
        Noop(
            "how-many-devices",
            "len(all_capabilities()) > 1",
            "the number of devices is not the generation's",
            _HELPERS,
        ),
        Noop(
            "iterator-advanced-before",
            "second() == MAJOR",
            "an iterator held in a name may have been advanced: only next(iter(x)) is read",
            _HELPERS
            + "MAJOR = torch.cuda.get_device_capability()[0]\n"
            + "def second():\n    it = iter([MAJOR, 5])\n    next(it)\n    return next(it)\n",
        ),
        Noop(
            "first-of-two",
            "next(iter({MAJOR, MAJOR + 1})) == MAJOR",
            "which item of a set of two comes first is its hash order's, not the generation's",
            _HELPERS + "MAJOR = torch.cuda.get_device_capability()[0]\n",
        ),
    ),
)
