"""A module global a function fills on first use: `_nv_cap = None` at module level, and
`global _nv_cap; if _nv_cap is None: _nv_cap = torch.cuda.get_device_capability()` in
the function that launches a kernel, read elsewhere as `_nv_cap[0] < 8` (lmdeploy's
Triton launch-parameter ladders). Read inside a function, such a name may hold the value
of any of its bindings (the module's own, or one a function made through `global`,
whichever ran last): one of them (values.OneOf, made by resolve's meeting of the
bindings flow cannot order, logic.either). An item of it is each option's item, and an
option without one raises there (`None[0]`), which is no value: `_nv_cap[0] < 8` is
the capability's test. The function that fills it and returns it (`global _S; if _S
is None: _S = probe(); return _S`, a check cached on first use) reads it as a local
holding one of the bindings, narrowed by the None test (statements._global): the
probe's value. Bindings that are not all constants (a setter storing its
argument, an instance) meet as unknown, as before. The semantics is in resolve
(resolve_name, module_attribute) and expressions (_item_of_options); this module
carries its examples."""

from __future__ import annotations

from gatecheck.semantics.idioms._model import Example, Idiom, Noop, generations

_LAUNCHER = """\
import torch

_nv_cap = None

def _init_nv_cap():
    global _nv_cap
    if _nv_cap is None:
        _nv_cap = torch.cuda.get_device_capability()

def old_gpu():
    return _nv_cap[0] < 8

def ampere():
    return _nv_cap[0] == 8

def consumer_blackwell():
    return _nv_cap[0] == 12 and _nv_cap[1] == 0

def cap_major():
    _init_nv_cap()
    return _nv_cap[0]

def not_yet_read():
    return _nv_cap is None
"""

_SETTER = """\
import torch

_arch = None

def set_arch(arch):
    global _arch
    _arch = arch

def new_arch():
    return _arch[0] >= 10
"""

_HELD_OBJECT = """\
import torch

_props = None

def _props_once():
    global _props
    if _props is None:
        _props = torch.cuda.get_device_properties(0)
    return _props

def many_sms():
    return _props[0] > 100
"""

_CACHED_CHECK = """\
import torch

_fp8_support = None
_mxfp8 = None

def _check_fp8():
    if torch.cuda.get_device_capability() >= (9, 0):
        return True, ""
    return False, "needs Hopper"

def check_fp8_support():
    global _fp8_support
    if _fp8_support is None:
        _fp8_support = _check_fp8()
    return _fp8_support

def mxfp8_supported():
    global _mxfp8
    if _mxfp8 is None:
        _mxfp8 = torch.cuda.get_device_capability()[0] == 10
    return _mxfp8

def fp8_usable():
    usable, reason = check_fp8_support()
    return usable
"""

_CACHED_FROM_ARGUMENT = """\
import torch

_mxfp8 = None

def mxfp8_supported():
    global _mxfp8
    if _mxfp8 is None:
        _mxfp8 = torch.cuda.get_device_capability()[0] == 10
    return _mxfp8

def set_mxfp8(value):
    global _mxfp8
    _mxfp8 = value
"""

IDIOM = Idiom(
    name="lazily filled module global",
    examples=(
        Example("major-below", "old_gpu()", generations("sm70", "sm75"), _LAUNCHER),
        Example(
            "major-equal",
            "ampere()",
            generations("sm80", "sm86", "sm87", "sm89"),
            _LAUNCHER,
        ),
        Example(
            "major-and-minor",
            "consumer_blackwell()",
            generations("sm120"),
            _LAUNCHER,
        ),
        Example(
            "read-after-the-initialiser",
            "cap_major() >= 9",
            # the registry gives the gfx9 parts capability 9.x, as ROCm reports them
            generations(
                "sm90", "sm100", "sm103", "sm110", "sm120", "sm121", "gfx90a", "gfx942", "gfx950"
            ),
            _LAUNCHER,
        ),
        Example(
            "cached-by-the-function-that-returns-it",
            "mxfp8_supported()",
            generations("sm100", "sm103"),
            _CACHED_CHECK,
        ),
        Example(
            "cached-pair-item",
            "check_fp8_support()[0]",
            # gfx9 parts report capability 9.x
            generations(
                "sm90", "sm100", "sm103", "sm110", "sm120", "sm121", "gfx90a", "gfx942", "gfx950"
            ),
            _CACHED_CHECK,
        ),
        Example(
            "cached-pair-unpacked",
            "fp8_usable()",
            # gfx9 parts report capability 9.x
            generations(
                "sm90", "sm100", "sm103", "sm110", "sm120", "sm121", "gfx90a", "gfx942", "gfx950"
            ),
            _CACHED_CHECK,
        ),
    ),
    noops=(
        Noop(
            "cached-or-set-from-an-argument",
            "mxfp8_supported()",
            "a setter storing its argument in the global makes it unknown: one of its "
            "bindings is not known, so the cached value may be the argument",
            _CACHED_FROM_ARGUMENT,
        ),
        Noop(
            "whether-it-was-filled",
            "not_yet_read()",
            "None until the function ran, the capability after: either, on every generation",
            _LAUNCHER,
        ),
        Noop(
            "a-setter-stores-its-argument",
            "new_arch()",
            "a binding whose value is not known (the setter's argument) makes the global "
            "unknown: one of its bindings, one of them unknown",
            _SETTER,
        ),
        Noop(
            "an-object-is-not-an-option",
            "many_sms()",
            "the device's properties object is not a constant: the global is unknown, not "
            "one of None and it",
            _HELD_OBJECT,
        ),
    ),
)
