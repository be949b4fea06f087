"""A platform class, instance or module chosen by a condition the device does not decide
(`CudaPlatform = NvmlCudaPlatform if nvml_available else NonNvmlCudaPlatform`): the alias
is one of the two, we cannot tell which (values.OneOf, made by the conditional
expression). A predicate called through it can be true on a generation where either
option's can, and false where either option's can (Kleene: agreeing options keep their
answer, disagreeing ones make it unknown). The semantics is in expressions/attributes/
calls; this module carries its examples."""

from __future__ import annotations

from gatecheck.semantics.idioms._model import Example, Idiom, Noop, generations

# Two platform classes whose predicates differ on sm121 only, and a probe whose answer
# no generation decides (NVML present or not).
_PLATFORMS = """\
import os
import torch

def _probe():
    try:
        import pynvml
        pynvml.nvmlInit()
        return True
    except Exception:
        return False

nvml_ok = _probe()

class NvmlPlatform:
    @classmethod
    def supports_fp4(cls):
        return torch.cuda.get_device_capability() == (12, 0)

    def has_capability(self, capability):
        major, minor = torch.cuda.get_device_capability()
        return major * 10 + minor >= capability

class NonNvmlPlatform:
    @classmethod
    def supports_fp4(cls):
        return torch.cuda.get_device_capability()[0] == 12

    def has_capability(self, capability):
        major, minor = torch.cuda.get_device_capability()
        return major * 10 + minor >= capability

class EnvPlatform:
    @classmethod
    def supports_fp4(cls):
        return os.environ.get("FP4") == "1"
"""
_SM12X = generations("sm120", "sm121")

IDIOM = Idiom(
    name="conditional alias",
    examples=(
        Example(
            "class-alias-union",
            "Platform.supports_fp4()",
            _SM12X,  # sm120 from either class, sm121 from NonNvmlPlatform's
            _PLATFORMS + "Platform = NvmlPlatform if nvml_ok else NonNvmlPlatform\n",
        ),
        Example(
            "instance-alias",
            "current_platform.has_capability(100)",
            generations("sm100", "sm103", "sm110", "sm120", "sm121"),
            _PLATFORMS + "current_platform = NvmlPlatform() if nvml_ok else NonNvmlPlatform()\n",
        ),
        Example(
            "chained-alias",
            "Platform.supports_fp4()",
            _SM12X,
            _PLATFORMS
            + "Platform = (NvmlPlatform if nvml_ok else NonNvmlPlatform) if os.name else "
            "NvmlPlatform\n",
        ),
        Example(
            "alias-through-getattr",
            'getattr(Platform, "supports_fp4")()',
            _SM12X,
            _PLATFORMS + "Platform = NvmlPlatform if nvml_ok else NonNvmlPlatform\n",
        ),
        Example(
            "decided-condition-picks-one",
            "Platform.supports_fp4()",
            generations("sm120"),  # on sm121 the condition is true: NvmlPlatform's answer
            _PLATFORMS + "Platform = NvmlPlatform if torch.cuda.get_device_capability()[0] == 12 "
            "else NonNvmlPlatform\n",
        ),
    ),
    noops=(
        Noop(
            "one-option-cannot-tell",
            "Platform.supports_fp4()",
            "one option's predicate reads no device: true or false on every generation",
            _PLATFORMS + "Platform = NvmlPlatform if nvml_ok else EnvPlatform\n",
        ),
        Noop(
            "none-is-no-platform",
            "Platform.supports_fp4()",
            "None has no predicate: the call may fail rather than answer",
            _PLATFORMS + "Platform = NvmlPlatform if nvml_ok else None\n",
        ),
        Noop(
            "which-option-is-unknown",
            "Platform is NvmlPlatform",
            "which option the alias holds is itself unknown (no generation decides it)",
            _PLATFORMS + "Platform = NvmlPlatform if nvml_ok else NonNvmlPlatform\n",
        ),
        Noop(
            "options-that-disagree-everywhere",
            "torch.cuda.get_device_capability()[0] >= (0 if nvml_ok else 99)",
            "two numbers met: the comparison is each one's, and they disagree on every "
            "generation (constants as options: idioms/constant_options.py)",
            _PLATFORMS,
        ),
    ),
)
