"""A function whose paths return different constants the device does not choose between:
a device table's entry or the fallback of an `except` (`return _ARCH_BY_CC[cc]` ...
`except Exception: return device`), a capability or 0 when CUDA is missing
(`return 10 * major + minor` ... `return 0`). Its value is one of them (values.OneOf,
made by statements.run_body's join of the returns and by a conditional expression); a
comparison, a method of a string (`.startswith("blackwell")`) or a truth test of it is
each option's, known where all options agree: `_max_capability() > 100` is false on
sm90 whichever path ran (90 and 0), and unknown on sm120 (120 and 0), so it admits
sm120 and not sm90. Anything else (arithmetic, a subscript, a call with it) reads it as
unknown. The semantics is in logic.either, values.truth and expressions; this module
carries its examples."""

from __future__ import annotations

from gatecheck.semantics.idioms._model import Example, Idiom, Noop, generations

# A family-name function (liger_kernel's infer_device_arch shape) and a capability helper
# with a fallback (its _max_capability shape), both read through their bodies.
_HELPERS = """\
import functools
import torch

_ARCH_BY_CC = {
    (9, 0): "hopper",
    (10, 0): "blackwell",
    (10, 3): "blackwell_ultra",
    (12, 0): "blackwell_consumer",
}

def infer_device():
    if torch.cuda.is_available():
        return "cuda"
    return "cpu"

def _nvidia_arch():
    major, minor = torch.cuda.get_device_capability()
    return _ARCH_BY_CC.get((major, minor), f"sm_{major}{minor}")

@functools.lru_cache(maxsize=None)
def infer_device_arch():
    device = infer_device()
    try:
        if device == "cuda":
            return _nvidia_arch()
    except Exception:
        return device
    return device

def max_capability():
    if torch.cuda.is_available():
        try:
            major, minor = torch.cuda.get_device_capability()
        except RuntimeError:
            return 0
        return 10 * major + minor
    return 0

def backend():
    try:
        capability = torch.cuda.get_device_capability()
    except RuntimeError:
        return "triton"
    return "cutlass" if capability == (9, 0) else "triton"
"""

IDIOM = Idiom(
    name="constants as options",
    examples=(
        Example(
            "family-name-or-fallback",
            'infer_device_arch().startswith("blackwell")',
            generations("sm100", "sm103", "sm120"),
            _HELPERS,
        ),
        Example(
            "capability-or-zero",
            "max_capability() > 100",
            generations("sm103", "sm110", "sm120", "sm121"),
            _HELPERS,
        ),
        Example(
            "equal-to-one-option",
            'backend() == "cutlass"',
            generations("sm90", "gfx90a"),  # the registry gives gfx90a capability (9, 0)
            _HELPERS,
        ),
        Example(
            "conditional-expression-of-numbers",
            "torch.cuda.get_device_capability()[0] >= (9 if os.environ.get('X') else 10)",
            # the registry gives the gfx9 parts capability 9.x, as ROCm reports them
            generations(
                "sm90", "sm100", "sm103", "sm110", "sm120", "sm121", "gfx90a", "gfx942", "gfx950"
            ),
            "import os\nimport torch\n",
        ),
    ),
    noops=(
        Noop(
            "arithmetic-reads-unknown",
            "max_capability() + 1 > 101",
            "only comparisons, string methods and truth are each option's: arithmetic on "
            "one of several values is unknown",
            _HELPERS,
        ),
        Noop(
            "one-path-agrees-everywhere",
            'infer_device_arch() == "cuda"',
            "the fallback path answers `cuda` on every generation, the table's path "
            "something else: unknown everywhere",
            _HELPERS,
        ),
    ),
)
