"""The allowlist is not in the condition but behind a name: a local or module variable
(`is_supported_arch = p.is_cuda() and (...)`, then `return ... and is_supported_arch`)
or a helper without arguments (`def _use_fast(): return cap.major in [9, 10]`, then
`if _use_fast():`), possibly in another module. Follow it and fix the allowlist where
it is written. Predicates named for a generation (`is_sm100_supported`, `_is_sm90`) are
not followed: their body is right, the gate needs a sibling (predicate_or)."""

from __future__ import annotations

from astroid import nodes

from gatecheck.fixing.strategies.base import Context, Fix, Refuse, flags_of
from gatecheck.semantics import culprit as culprits
from gatecheck.semantics.culprit import behind, culprit
from gatecheck.semantics.evaluator import Evaluator

__all__ = ["EXAMPLES", "NAME", "NOOPS", "behind", "fix", "step"]

NAME = "follow"

_CAP = "import torch\ncap = torch.cuda.get_device_capability()\n"

EXAMPLES = [
    (
        _CAP + "def _use_fast():\n    return cap[0] in [9, 10]\n"
        "def enabled(args):\n    return _use_fast() and args.go\n",
        _CAP + "def _use_fast():\n    return cap[0] in [9, 10, 12]\n"
        "def enabled(args):\n    return _use_fast() and args.go\n",
    ),
    (
        _CAP + "def enabled(args):\n    supported = cap[0] == 9 or cap[0] == 10\n"
        "    return args.go and supported\n",
        _CAP + "def enabled(args):\n    supported = cap[0] == 9 or cap[0] == 10 or cap[0] == 12\n"
        "    return args.go and supported\n",
    ),
    # A method reading the capability its object holds: `self` is the receiver, not an
    # argument of the call, so the allowlist in its body is the one to widen.
    (
        "import torch\nclass Backend:\n    def __init__(self):\n"
        "        self.capability = torch.cuda.get_device_capability()\n"
        "    def _use_fast(self):\n        return self.capability[0] in [9, 10]\n"
        "    def enabled(self, args):\n        return self._use_fast() and args.go\n",
        "import torch\nclass Backend:\n    def __init__(self):\n"
        "        self.capability = torch.cuda.get_device_capability()\n"
        "    def _use_fast(self):\n        return self.capability[0] in [9, 10, 12]\n"
        "    def enabled(self, args):\n        return self._use_fast() and args.go\n",
    ),
    (
        _CAP + "class Backend:\n    @classmethod\n    def _use_fast(cls):\n"
        "        return cap[0] in cls.MAJORS or cap[0] == 10\n    MAJORS = (9,)\n"
        "    def enabled(self, args):\n        return self._use_fast() and args.go\n",
        _CAP + "class Backend:\n    @classmethod\n    def _use_fast(cls):\n"
        "        return cap[0] in cls.MAJORS or cap[0] == 10 or cap[0] == 12\n    MAJORS = (9,)\n"
        "    def enabled(self, args):\n        return self._use_fast() and args.go\n",
    ),
    # A module-level allowlist with a name that says no generation: fixed where defined.
    (
        _CAP + "_FAST_OK = cap[0] == 9 or cap[0] == 10\n"
        "def enabled(args):\n    return _FAST_OK and args.go\n",
        _CAP + "_FAST_OK = cap[0] == 9 or cap[0] == 10 or cap[0] == 12\n"
        "def enabled(args):\n    return _FAST_OK and args.go\n",
    ),
]

NOOPS = [
    (
        _CAP
        + "def _use_fast():\n    if cap[0] == 9:\n        return True\n    return cap[0] == 10\n"
        "def enabled(args):\n    return _use_fast() and args.go\n",
        "returns in more than one place",
    ),
    (
        _CAP + "def _use_fast(majors=(9, 10)):\n    return cap[0] in majors\n"
        "def enabled(args):\n    return _use_fast() and args.go\n",
        "reads its parameter `majors`",
    ),
    # A method's other parameters are the call's arguments: still not followed.
    (
        _CAP + "class Backend:\n    def _use_fast(self, majors=(9, 10)):\n"
        "        return cap[0] in majors\n"
        "    def enabled(self, args):\n        return self._use_fast() and args.go\n",
        "`_use_fast`'s allowlist reads its parameter `majors`: not followed",
    ),
    (
        _CAP + "def enabled(args):\n    supported = cap[0] == 9\n"
        "    if args.x:\n        supported = cap[0] == 10\n"
        "    return args.go and supported\n",
        "is assigned in more than one place",
    ),
]


def fix(ctx: Context, target: nodes.NodeNG) -> Fix | None:
    first = ctx.semantics.registry.ordered(ctx.missing)[0]
    evaluator = ctx.semantics.evaluator(first, flags_of(ctx))
    value = step(evaluator, target)
    if value is None:
        return None
    from gatecheck.fixing.strategies import extend

    inner = ctx.at(value)
    allowlist = culprit(value, evaluator, needs=True)
    found = extend(inner.widening(allowlist), allowlist)
    where = f" (in {inner.module.name})" if inner.module is not ctx.module else ""
    return Fix(found.adds, f"{found.summary}, behind `{target.as_string()}`{where}")


def step(evaluator: Evaluator, target: nodes.NodeNG) -> nodes.NodeNG | None:
    """The expression behind `target` (semantics.culprit.step); Refuse with its reason
    when it is a name or helper that cannot be followed."""
    try:
        return culprits.step(evaluator, target)
    except culprits.NotFollowed as err:
        raise Refuse(str(err)) from err
