"""Reads of the process environment: `os.environ.get(NAME)`, `os.getenv(NAME)`.

Their value is unknown, and the same on every device: an environment variable is set by
whoever starts the process, not by the GPU. Read as an unknown, a variable that overrides
the device's own answer hides the gate behind it:

    override = os.environ.get("QUACK_ARCH")      # a cross-compile knob, unset on a GPU
    if override is not None:
        return parse(override)
    return torch.cuda.get_device_capability()

makes `get_capability()[0] == 9` unknown on every generation, and the audit drops it as
no gate. It is no gate only for some settings of the environment: with the variable
unset, it is true on sm90 alone. So the audit (Semantics.assume_unset_environment) asks
a condition that read the environment and the device, and came out unknown on every
generation of a vendor, once more in the world where no variable is set
(Evaluator.unset_environment: each read answers its default); if generations answer
differently there, that is its answer, with `QUACK_ARCH unset` among what it assumed
(the row says so). Only such a condition: a variable that switches a feature on beside
the device's test (`os.environ.get("FORCE") == "1" or major == 9`) already leaves the
generations apart, and is read as it always was. `check` never assumes: a rule's gate
behind an override still admits every generation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from gatecheck.semantics.idioms._model import NOT_MINE

if TYPE_CHECKING:
    from gatecheck.semantics.evaluator import Evaluator

# The calls that read one variable, with its default as their second argument.
READS = frozenset({"os.environ.get", "os.getenv", "os.environ.setdefault"})


def read(ev: Evaluator, dotted: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    """The value of an environment read: NOT_MINE for any other call; the default (None
    unless given) in the unset world; else NOT_MINE too (the caller's unknown)."""
    if dotted not in READS:
        return NOT_MINE
    ev.reads.environment = True
    if not ev.unset_environment:
        return NOT_MINE
    name = args[0] if args else kwargs.get("key")
    ev.reads.assumed.add(f"{name if isinstance(name, str) else 'an environment variable'} unset")
    if len(args) > 1:
        return args[1]
    return kwargs.get("default", kwargs.get("value"))
