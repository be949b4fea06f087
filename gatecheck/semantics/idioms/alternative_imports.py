"""A name bound by alternative imports, a compatibility shim (`try: from cutlass.base_dsl
import Arch` / `except ImportError: from cutlass.base_dsl.arch import Arch`, two module
paths of one DSL release and the next; `import tomllib as toml` or `import tomli as
toml` by Python version): whichever import ran, the name holds the object it bound, so
it is one of them (values.OneOf, made by resolve.imports_only and logic.either's
`outside`: names from outside the project stay options). An attribute or call through
it is each option's, met again: `Arch.sm_90` is the same enum member through either
path, so `arch < Arch.sm_90` is read as through one import (liger-kernel 0.8.5's CuTe
RMSNorm). Options that disagree (a torch function and one from a package gatecheck
cannot read) leave the answer unknown where they do; which import ran is never known.
A fallback assigned a value (`except ImportError: Arch = None`) is no reference: the
name meets as before, unknown. The semantics is in resolve/logic/attributes; this
module carries its examples."""

from __future__ import annotations

from gatecheck.semantics.idioms._model import Example, Idiom, Noop, generations

_TARGET = "arch = cutlass.base_dsl.BaseDSL._get_dsl().get_arch_enum()\n"
# The DSL's target is unknown below sm80 and on AMD; Thor is sm_101a or sm_110a, both
# past sm_90.
_BEFORE_HOPPER = generations(
    "sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "gfx90a", "gfx942", "gfx950"
)


def _shim(body: str, fallback: str) -> str:
    return f"try:\n    {body}\nexcept ImportError:\n    {fallback}\n"


IDIOM = Idiom(
    name="alternative imports",
    examples=(
        Example(
            "from-import-pair",
            "arch < Arch.sm_90",
            _BEFORE_HOPPER,
            "import cutlass\n"
            + _shim("from cutlass.base_dsl import Arch", "from cutlass.base_dsl.arch import Arch")
            + _TARGET,
        ),
        Example(
            "module-alias-pair",
            "arch < dsl.Arch.sm_90",  # dsl.Arch is either module's Arch: one of two names
            _BEFORE_HOPPER,
            "import cutlass\n"
            + _shim("import cutlass.base_dsl as dsl", "import cutlass as dsl")
            + _TARGET,
        ),
        Example(
            "chosen-by-version",
            "arch < Arch.sm_90",
            _BEFORE_HOPPER,
            "import sys\nimport cutlass\nif sys.version_info >= (3, 11):\n"
            "    from cutlass import Arch\nelse:\n    from cutlass.base_dsl import Arch\n"
            + _TARGET,
        ),
        Example(
            "def-fallback",
            "is_hopper()",
            # The body's answer where the helper's name (a convention, assumed) agrees;
            # on AMD they disagree (the body: major 9), so it stays admitted.
            generations("sm90", "gfx90a", "gfx942", "gfx950"),
            "import torch\n"
            + _shim(
                "from extlib.utils import is_hopper",
                "def is_hopper():\n        return torch.cuda.get_device_capability()[0] == 9",
            ),
            assumed=True,
        ),
    ),
    noops=(
        Noop(
            "alternatives-that-disagree",
            "cap()[0] >= 9",
            "torch's capability through one import, a name nothing reads through the other",
            "import torch\n"
            + _shim(
                "from torch.cuda import get_device_capability as cap",
                "from extlib import cap",
            ),
        ),
        Noop(
            "which-import-ran",
            "dtype == torch.bfloat16",
            "which alternative the name holds is itself unknown (no generation decides it)",
            "import torch\n"
            + _shim("from torch import bfloat16 as dtype", "from torch import float16 as dtype"),
        ),
        Noop(
            "fallback-none",
            "arch < Arch.sm_90",
            "None is no reference: the name is the import or None, and meets as unknown",
            "import cutlass\n"
            + _shim("from cutlass.base_dsl import Arch", "Arch = None")
            + _TARGET,
        ),
    ),
)
