"""Values gatecheck knows to exist but does not read (values.Opaque): a name from outside
the scanned roots, torch's toolkit release strings. Equality and membership with a
constant are unknown, never Python's answer for gatecheck's own object (which would
call `extlib.MODE == "fast"` false everywhere and drop the gate around it)."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.admission import EVERY, assert_can_be_true

AMD = frozenset({"gfx90a", "gfx942", "gfx950"})
NVIDIA_FROM_9 = frozenset({"sm90", "sm100", "sm103", "sm110", "sm120", "sm121"})
FROM_9 = NVIDIA_FROM_9 | AMD
NVIDIA_BELOW_9 = frozenset({"sm70", "sm75", "sm80", "sm86", "sm87", "sm89"})
NVIDIA = NVIDIA_FROM_9 | NVIDIA_BELOW_9
MAJOR = "torch.cuda.get_device_capability()[0]"
HEADER = "import torch\nimport extlib\n"

CASES = [
    pytest.param(HEADER, f'extlib.MODE == "fast" and {MAJOR} >= 9', FROM_9, id="external-eq"),
    pytest.param(HEADER, f'extlib.MODE != "fast" or {MAJOR} >= 9', EVERY, id="external-ne"),
    pytest.param(HEADER, 'extlib.__version__ in ("1.0", "1.1")', EVERY, id="external-in"),
    pytest.param(HEADER, 'extlib.__version__ not in ("1.0",)', EVERY, id="external-not-in"),
    pytest.param(
        HEADER,
        f'(extlib.A, {MAJOR}) == ("x", 9)',
        FROM_9 - NVIDIA_FROM_9 | {"sm90"},
        id="external-inside-a-tuple",
    ),
    pytest.param(
        HEADER,
        f'(extlib.A, {MAJOR}) == ("x", 9, 0)',
        frozenset(),
        id="tuples-of-other-lengths-differ",
    ),
    pytest.param(
        HEADER + f"def f(d, x):\n    return (d, x) == (128, torch.bfloat16) and {MAJOR} >= 9\n",
        "f(_d, _x)",
        FROM_9,
        id="unknown-beside-a-reference-in-a-tuple",
    ),
    pytest.param(
        HEADER,
        f"extlib.kernel is None or {MAJOR} < 9",
        NVIDIA_BELOW_9,
        id="a-reference-is-not-none",
    ),
    pytest.param(
        HEADER,
        f"extlib.kernel == None or {MAJOR} < 9",
        NVIDIA_BELOW_9,
        id="a-reference-is-unequal-to-none",
    ),
    pytest.param(
        HEADER,
        f"torch.bfloat16 == torch.bfloat16 and {MAJOR} >= 9",
        FROM_9,
        id="one-name-equals-itself",
    ),
    pytest.param(
        HEADER,
        f"torch.float16 in (torch.bfloat16, torch.float8_e4m3fn) or {MAJOR} >= 9",
        FROM_9,
        id="two-names-are-told-apart",
    ),
    pytest.param(HEADER, 'str(extlib.MODE) == "x"', EVERY, id="str-of-a-reference"),
    pytest.param(HEADER, '"%s" % extlib.MODE == "x"', EVERY, id="formatted-reference"),
    pytest.param(
        "import torch",
        f"torch.version.hip is None and {MAJOR} >= 9",
        NVIDIA_FROM_9,
        id="hip-release-is-not-none",
    ),
    pytest.param(
        "import torch",
        f"not torch.version.hip and {MAJOR} >= 9",
        NVIDIA_FROM_9,
        id="hip-release-is-true",
    ),
    pytest.param("import torch", 'str(torch.version.hip) == "6.2"', AMD, id="hip-release-unread"),
    pytest.param(
        "import torch",
        'torch.version.hip is not None and torch.version.hip >= "6.0"',
        AMD,
        id="hip-release-order",
    ),
    pytest.param(
        "import torch",
        f'torch.version.cuda == "12.8" and {MAJOR} == 12',
        frozenset({"sm120", "sm121"}),
        id="cuda-release-equality-unknown",
    ),
    pytest.param(
        "import torch\n"
        "def usable():\n"
        "    if torch.version.hip is not None:\n"
        "        return False\n"
        "    return extlib_ok()\n"
        "def extlib_ok():\n"
        "    import extlib\n"
        '    return extlib.MODE == "on"\n',
        "usable()",
        NVIDIA,
        id="hip-early-return",
    ),
    # Truth: a name from outside is a flag, None or a function; only `import x` itself
    # is known to be a module, always true.
    pytest.param(HEADER, "not extlib.HAS_FP8", EVERY, id="external-attribute-may-be-false"),
    pytest.param(
        HEADER + "from extlib import HAS_FP8\n",
        f"not HAS_FP8 and {MAJOR} >= 9",
        FROM_9,
        id="imported-name-may-be-false",
    ),
    pytest.param(
        HEADER,
        f"{MAJOR} >= 12 if extlib.FAST else {MAJOR} >= 9",
        FROM_9,
        id="external-test-takes-either-branch",
    ),
    pytest.param(HEADER, f"extlib and {MAJOR} >= 9", FROM_9, id="noop-a-module-is-true"),
    pytest.param(HEADER, "not extlib", frozenset(), id="noop-a-module-is-never-false"),
]


@pytest.mark.parametrize(("source", "expr", "admitted"), CASES)
def test_opaque(ruleset: RuleSet, source: str, expr: str, admitted: object) -> None:
    assert_can_be_true(ruleset, source, expr, admitted)


# Lists of strings joined where some strings are only partly read (values.SomeText): the
# list is known, those strings stay partly known in place (kernels/support.py reads nvcc's
# options so). Anything else unknown in either list, and the join is unknown.
JOINED = [
    pytest.param('[f"-DPAGE={n}"] + ["-O3"]', "[SomeText(-DPAGE=), '-O3']", id="text-then-known"),
    pytest.param('("-O3",) + (f"-DN={n}",)', "('-O3', SomeText(-DN=))", id="tuples"),
    pytest.param('[f"-DPAGE={n}"] + [n]', "Unknown", id="an-unknown-item"),
    pytest.param('[f"-DPAGE={n}"] + (n,)', "Unknown", id="a-list-and-a-tuple"),
]


@pytest.mark.parametrize(("expr", "expected"), JOINED)
def test_lists_of_strings_joined(expr: str, expected: str) -> None:
    from gatecheck.config.loader import load_ruleset
    from gatecheck.semantics.admitted import Semantics, in_memory_project
    from gatecheck.semantics.values import SomeText

    project = in_memory_project({"m": f"def f(n):\n    return {expr}\n"})
    module = project.module("m")
    assert module is not None
    value = (
        Semantics(project, load_ruleset([]).registry)
        .evaluator("sm90")
        .value(module.body[0].body[0].value)
    )

    def shown(v: object) -> str:
        if isinstance(v, SomeText):
            return f"SomeText({v.head})"
        if isinstance(v, (list, tuple)):
            inner = ", ".join(shown(x) for x in v)
            return f"[{inner}]" if isinstance(v, list) else f"({inner})"
        return repr(v)

    assert shown(value) == expected
