"""A function whose paths return different constants the device does not choose between:
a device table's entry or the fallback of an `except` (`return _ARCH_BY_CC[cc]` ...
`except Exception: return device`), or a table's row read with an unknown key
(`.get(world_size, 0)`: one of the row's values or the default). Its value is one of
them (values.OneOf, made by statements.run_body's join of the returns, a conditional
expression and calls.py's `dict.get` of an unknown key); a comparison (a membership
test in a list, set or dict of constants too: `cc in [100, 103]`, natten's shape), a
method of a string (`.startswith("blackwell")`) or a truth test of it is each option's,
known where all options agree (an ordering skips a None option: it raises there, and a
raise is no value): `max_size(world_size) > 0` is unknown on sm90 and sm100 (a size of
their row or the default 0) and false elsewhere (the default alone), so it admits sm90
and sm100.
Anything else (arithmetic, a subscript, a call with it) reads it as unknown. A
capability read in a `try` whose handler returns 0 (`return 10 * major + minor` ...
`except RuntimeError: return 0`) is not one of these: under a generation the device's
read completes and the handler never runs (raising.py). The semantics is in
logic.either, values.truth, expressions and calls; this module carries its examples."""

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

# Buffer sizes by capability and world size (lmdeploy's symmetric-memory allreduce shape):
# the world size is unknown, so a lookup is one of the row's sizes or the default.
_MAX_SIZES = {90: {2: 64, 4: 32}, 100: {2: 64, 4: 64, 8: 32}}
_KERNELS = {90: ["a", "b"], 100: ["c"]}

def cc_or_zero(device):
    if device.type == "cuda":
        major, minor = torch.cuda.get_device_capability()
        return major * 10 + minor
    return 0

_BLACKWELL = [100, 103]
_TUNED = {90: 128, 100: 256}

def max_size(world_size):
    major, minor = torch.cuda.get_device_capability()
    return _MAX_SIZES.get(major * 10 + minor, {}).get(world_size, 0)

class Cache:
    def __init__(self):
        self._sizes = {}

    def size(self, key):
        return self._sizes.get(key)

def kernels(world_size):
    return {2: _KERNELS, 4: _KERNELS}.get(world_size, {})

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
            "table-row-read-with-an-unknown-key",
            'max_size(int(os.environ["WORLD_SIZE"])) > 0',
            generations("sm90", "sm100", "gfx90a"),  # gfx90a reports capability (9, 0)
            "import os\n" + _HELPERS,
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
        Example(
            "none-or-a-number-ordered",
            # Ordering None raises, so an ordering reads the number: vLLM's scaled-mm
            # `compute_capability < 100`, its callers passing None or the device's.
            "(None if os.environ.get('X') else torch.cuda.get_device_capability()[0] * 10) < 100",
            generations(
                "sm70",
                "sm75",
                "sm80",
                "sm86",
                "sm87",
                "sm89",
                "sm90",
                "gfx90a",
                "gfx942",
                "gfx950",
            ),
            "import os\nimport torch\n",
        ),
        Example(
            "membership-in-a-list",
            "cc_or_zero(torch.device(os.environ['DEV'])) in [100, 103]",
            generations("sm100", "sm103"),
            "import os\n" + _HELPERS,
        ),
        Example(
            "membership-in-a-set",
            "cc_or_zero(torch.device(os.environ['DEV'])) in {90, 120}",
            generations("sm90", "sm120", "gfx90a"),
            "import os\n" + _HELPERS,
        ),
        Example(
            "membership-in-a-named-list",
            "cc_or_zero(torch.device(os.environ['DEV'])) in _BLACKWELL",
            generations("sm100", "sm103"),
            "import os\n" + _HELPERS,
        ),
        Example(
            "membership-in-a-table's-keys",
            "cc_or_zero(torch.device(os.environ['DEV'])) in _TUNED",
            generations("sm90", "sm100", "gfx90a"),
            "import os\n" + _HELPERS,
        ),
    ),
    noops=(
        Noop(
            "membership-in-one-of-two-lists",
            "cc_or_zero(torch.device(os.environ['DEV'])) in "
            "(_BLACKWELL if os.environ.get('X') else [90, 120])",
            "one of several containers is unknown (a parameter each caller passes its own "
            "list: each call is read with its own)",
            "import os\n" + _HELPERS,
        ),
        Noop(
            "membership-in-a-list-holding-an-unknown",
            "cc_or_zero(torch.device(os.environ['DEV'])) in [100, int(os.environ['X'])]",
            "an unknown item may be any number: each option may be in the list",
            "import os\n" + _HELPERS,
        ),
        Noop(
            "table-of-lists-read-with-an-unknown-key",
            'kernels(int(os.environ["WORLD_SIZE"])) == {}',
            "a lookup is one of the table's values only when they are constants: a table of "
            "tables of lists is unknown",
            "import os\n" + _HELPERS,
        ),
        Noop(
            "an-empty-cache-read-without-default",
            'Cache().size(int(os.environ["WORLD_SIZE"])) is None',
            "`self._sizes = {}` is filled at run time: an empty table read `.get(key)` is a "
            "cache, not a table with no row for the key",
            "import os\n" + _HELPERS,
        ),
        Noop(
            "arithmetic-reads-unknown",
            'infer_device_arch() * 0 != ""',
            "only comparisons, string methods and truth are each option's: arithmetic on "
            "one of several values is unknown (each option's would make this false)",
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
