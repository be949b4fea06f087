"""The CuTe DSL's compile target: `BaseDSL._get_dsl().get_arch_enum()` (also through
`CuTeDSL._get_dsl()`), a member of `cutlass.Arch`, compared with members
(`arch >= Arch.sm_100 and arch <= Arch.sm_100f`), read by `.major`/`.minor`/`.suffix`,
`arch.is_family_of(Arch.sm_100f)`, or looked up in `Arch.BlackwellArchs()`; kernels wrap
such tests in `cutlass.const_expr(...)`, an identity. FA4's CuTe kernels in sglang and
vLLM, FlashInfer's, liger's, quack's and TransformerEngine's choose paths this way.

As the DSL reads it (cutlass/base_dsl/env_manager.py, detect_gpu_arch): the device's
capability, suffix "a" from major 9 (sm_90a, sm_100a, sm_120a). An Arch member is equal
to the same member only; `<` and the others compare (major, minor) alone
(values.CuteArch). Thor (11, 0) is one of two members, as the DSL release names it:
sm_101a (before CUDA 13.0) or sm_110a (values.OneOf: a test is known where the two
agree, `arch >= Arch.sm_100 and arch <= Arch.sm_100f` false on both). Unknown: AMD parts
(the DSL does not run there) and parts older than sm_80 (no member). `CUTE_DSL_ARCH`
overrides the target: a choice of the build's, not of the device, and not read."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gatecheck.config.model import Generation
from gatecheck.semantics.idioms._model import Example, Idiom, Intrinsic, Noop, generations
from gatecheck.semantics.values import UNKNOWN, CuteArch, CuteDsl, OneOf, Value

# (major, minor) of the enum's members; each has "", "a" and "f" forms from Hopper on
# (sm_90 has no "f"), Ampere and Ada only "".
_MEMBERS = {
    (8, 0): ("",),
    (8, 6): ("",),
    (8, 7): ("",),
    (8, 9): ("",),
    (9, 0): ("", "a"),
    (10, 0): ("", "a", "f"),
    (10, 1): ("", "a", "f"),
    (10, 3): ("", "a", "f"),
    (10, 7): ("", "a", "f"),
    (11, 0): ("", "a", "f"),
    (12, 0): ("", "a", "f"),
    (12, 1): ("", "a", "f"),
}
_FAMILIES = {
    "AmpereArchs": ((8, 0), (8, 6), (8, 7)),
    "AdaArchs": ((8, 9),),
    "HopperArchs": ((9, 0),),
    "BlackwellArchs": ((10, 0), (10, 1), (10, 3), (11, 0), (12, 0), (12, 1)),
}


def _members(keys: Sequence[tuple[int, int]]) -> tuple[CuteArch, ...]:
    return tuple(CuteArch(major, minor, s) for major, minor in keys for s in _MEMBERS[major, minor])


def target(generation: Generation) -> Value:
    if generation.vendor != "nvidia":
        return UNKNOWN
    major, minor = generation.capability
    if (major, minor) == (11, 0):
        # sm_101a or sm_110a, as the DSL release names Thor
        return OneOf((CuteArch(10, 1, "a"), CuteArch(11, 0, "a")))
    if (major, minor) not in _MEMBERS:
        return UNKNOWN  # no such member: the DSL raises (it compiles for sm_80 up)
    return CuteArch(major, minor, "a" if major >= 9 else "")


def _dsl(generation: Generation, _args: Sequence[Value] = ()) -> CuteDsl:
    return CuteDsl(target(generation))


def _identity(_generation: Generation, args: Sequence[Value] = ()) -> Value:
    return args[0] if len(args) == 1 else UNKNOWN


def _constant(value: Value) -> Callable[[Generation, Sequence[Value]], Value]:
    def read(_generation: Generation, _args: Sequence[Value] = ()) -> Value:
        return value

    return read


def _member(arch: CuteArch) -> Intrinsic:
    name = f"Arch.sm_{arch.major}{arch.minor}{arch.suffix}"
    return Intrinsic(name, _constant(arch), reads_device=False)


def _family(name: str, keys: Sequence[tuple[int, int]]) -> Intrinsic:
    return Intrinsic(f"Arch.{name}", _constant(_members(keys)), reads_device=False)


def attribute(receiver: object, name: str) -> Value:
    if isinstance(receiver, CuteDsl):
        return receiver.get_arch_enum if name == "get_arch_enum" else UNKNOWN
    if name in ("major", "minor", "suffix", "is_family_of"):
        return getattr(receiver, name)
    if name == "name" and isinstance(receiver, CuteArch):
        # The member's name, parsed back by some (`int(arch.name.split("_")[1]...)`).
        return f"sm_{receiver.major}{receiver.minor}{receiver.suffix}"
    return UNKNOWN


_KERNEL = """\
import cutlass
from cutlass.base_dsl import BaseDSL
from cutlass.base_dsl.arch import Arch

class Kernel:
    def __init__(self):
        self.arch = BaseDSL._get_dsl().get_arch_enum()

    def sm100_family(self):
        return cutlass.const_expr(self.arch >= Arch.sm_100 and self.arch <= Arch.sm_100f)

    def tma(self):
        return self.arch >= Arch.sm_90

    def sm12x(self):
        return self.arch.major == 12

    def family_103(self):
        return self.arch.is_family_of(Arch.sm_103f)

    def family_90(self):
        return self.arch.is_family_of(Arch.sm_90a)

    def blackwell_specific(self):
        return self.arch in cutlass.Arch.BlackwellArchs() and self.arch.suffix in ("a", "f")

    def exactly_sm90(self):
        return self.arch == Arch.sm_90

    def sm_number_from_name(self):
        return int(self.arch.name.split("_")[1].rstrip("af")) >= 100

    def built_for(self):
        return BaseDSL._get_dsl().envar.arch == "sm_100a"
"""

# Where the target is unknown (no member for it, AMD): true there too, maybe. Thor (sm110)
# is sm_101a or sm_110a: known where the two agree.
_UNKNOWN = ("sm70", "sm75", "gfx90a", "gfx942", "gfx950")

IDIOM = Idiom(
    name="CuTe DSL compile target",
    calls=(
        Intrinsic("._get_dsl", _dsl, match="tail"),
        Intrinsic("cutlass.const_expr", _identity, reads_arguments=True, reads_device=False),
        *(_family(name, keys) for name, keys in _FAMILIES.items()),
    ),
    attributes=tuple(_member(arch) for arch in _members(tuple(_MEMBERS))),
    value_attributes=((CuteDsl, attribute), (CuteArch, attribute)),
    examples=(
        Example(
            "range-of-a-family", "Kernel().sm100_family()", generations("sm100", *_UNKNOWN), _KERNEL
        ),
        Example(
            "ordered-by-major-minor",
            "Kernel().tma()",
            generations("sm90", "sm100", "sm103", "sm110", "sm120", "sm121", *_UNKNOWN),
            _KERNEL,
        ),
        Example("major", "Kernel().sm12x()", generations("sm120", "sm121", *_UNKNOWN), _KERNEL),
        # a method through Thor's two names is each one's: false on both (sm_101a and
        # sm_110a are of no sm_103f family)
        Example("family", "Kernel().family_103()", generations("sm103", *_UNKNOWN), _KERNEL),
        Example("hopper-family", "Kernel().family_90()", generations("sm90", *_UNKNOWN), _KERNEL),
        Example(
            "in-blackwell-archs",
            "Kernel().blackwell_specific()",
            generations("sm100", "sm103", "sm110", "sm120", "sm121", *_UNKNOWN),
            _KERNEL,
        ),
        # the member's name parsed back into its SM number (quack's rounding kernels)
        Example(
            "name-parsed",
            "Kernel().sm_number_from_name()",
            generations("sm100", "sm103", "sm110", "sm120", "sm121", *_UNKNOWN),
            _KERNEL,
        ),
        # the device's target is sm_90a, never the member sm_90
        Example(
            "a-member-is-only-itself", "Kernel().exactly_sm90()", generations(*_UNKNOWN), _KERNEL
        ),
    ),
    noops=(
        Noop(
            "the-environments-target",
            "Kernel().built_for()",
            "the DSL's environment (CUTE_DSL_ARCH or the detected device) is not read",
            _KERNEL,
        ),
    ),
)
