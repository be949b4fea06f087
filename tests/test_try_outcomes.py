"""What a `try` body certainly does on a generation (semantics/raising.py): a lookup that
misses raises there, so only the handlers that may catch it run; a body that cannot raise
(statement by statement, each read in what the ones before it bound; the device's own
read completes on a generation that answers it) leaves every handler out. The table idiom of the sm120 story
(`try: return CONFIGS[cap] except KeyError: return DEFAULT`) is then the table's value
where it has the generation's key and the default where it has not, not either on every
generation. The noops are bodies that may raise or not: every handler may run."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.admission import EVERY, assert_can_be_true

AMD = frozenset({"gfx90a", "gfx942", "gfx950"})
NVIDIA = frozenset(
    {"sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm90", "sm100", "sm103", "sm110"}
    | {"sm120", "sm121"}
)
# The table's keys: (9, 0) is sm90 and gfx90a, (10, 0) sm100.
IN_TABLE = frozenset({"sm90", "gfx90a", "sm100"})
HEADER = (
    "import torch\n"
    "from enum import Enum\n"
    "cap = torch.cuda.get_device_capability()\n"
    "TABLE = {(9, 0): 128, (10, 0): 256}\n"
    "SIZES = (64, 128)\n"
    "_probe = None\n"
    "class Smem(Enum):\n"
    "    HOPPER = 232448\n"
    "    DEFAULT = 102400\n"
    "    @classmethod\n"
    "    def of(cls, arch):\n"
    "        try:\n"
    "            return cls[arch.upper()].value\n"
    "        except KeyError:\n"
    "            return cls.DEFAULT.value\n"
    "def block():\n"
    "    try:\n"
    "        size = TABLE[cap]\n"
    "    except KeyError:\n"
    "        size = None\n"
    "    return size\n"
)

# A capability read inside a try whose handler answers None (no device).
SENTINEL = """\
import torch
from cuda.bindings import runtime as cudart
from extlib import helper


def sm():
    try:
        major, minor = torch.cuda.get_device_capability()
        return major * 10 + minor
    except Exception:
        return None


def arch():
    try:
        major, minor = torch.cuda.get_device_capability()
        return f"sm_{major}{minor}"
    except Exception:
        return None


def text():
    try:
        cap: tuple[int, int] = torch.cuda.get_device_capability()
        return str(cap[0] * 10 + cap[1])
    except RuntimeError:
        return None


MAJOR = cudart.cudaDeviceAttr.cudaDevAttrComputeCapabilityMajor


def driver():
    try:
        return cudart.cudaDeviceGetAttribute(MAJOR, 0)[1]
    except Exception:
        return None


def unknown_first():
    try:
        helper()
        major, minor = torch.cuda.get_device_capability()
        return major * 10 + minor
    except Exception:
        return None


def divided():
    try:
        major, minor = torch.cuda.get_device_capability()
        return major // minor
    except Exception:
        return None


def unpacked():
    try:
        major, minor, patch = torch.cuda.get_device_capability()
        return major
    except Exception:
        return None


def shadowed():
    str = helper
    try:
        major, minor = torch.cuda.get_device_capability()
        return str(major)
    except Exception:
        return None
"""

CASES = [
    # the default only where the table lacks the key, the table's value only where it has it
    pytest.param(HEADER, "block() is None", (NVIDIA | AMD) - IN_TABLE, id="table-miss-default"),
    pytest.param(HEADER, "block() == 128", frozenset({"sm90", "gfx90a"}), id="table-hit-value"),
    pytest.param(
        HEADER + "def f():\n    try:\n        return TABLE[cap]\n    except LookupError:\n"
        "        return 0\n",
        "f() == 0",
        (NVIDIA | AMD) - IN_TABLE,
        id="a-base-class-catches",
    ),
    # an Enum member by a name it lacks raises KeyError; one it has does not
    pytest.param(HEADER, 'Smem.of("none") == 102400', EVERY, id="enum-missing-name-is-the-default"),
    pytest.param(HEADER, 'Smem.of("none") != 102400', frozenset(), id="never-the-member"),
    pytest.param(HEADER, 'Smem.of("hopper") == 102400', frozenset(), id="never-the-default"),
    # a sequence past its end, None subscripted
    pytest.param(
        HEADER + "def f():\n    try:\n        return SIZES[2]\n    except IndexError:\n"
        "        return cap[0] == 12\n",
        "f()",
        frozenset({"sm120", "sm121"}),
        id="index-past-the-end",
    ),
    pytest.param(
        HEADER + "def f():\n    try:\n        return _probe[0] >= 9\n    except TypeError:\n"
        "        return cap[0] == 12\n",
        "f()",
        frozenset({"sm120", "sm121"}),
        id="none-subscripted",
    ),
    # noops: a call may raise or not; a body of two statements is not told
    pytest.param(
        HEADER + "def f():\n    try:\n        return TABLE[cap] + len(str(cap))\n"
        "    except KeyError:\n        return None\n",
        "f() is None",
        EVERY,
        id="noop-a-call-may-raise",
    ),
    # a body of several statements, each read in what the ones before it bound
    pytest.param(
        HEADER + "def f():\n    try:\n        x = 1\n        return TABLE[cap]\n"
        "    except KeyError:\n        return None\n",
        "f() is None",
        (NVIDIA | AMD) - IN_TABLE,
        id="two-statements",
    ),
    # the device's own read completes on a generation that answers it: the `None` of
    # the handler (no device) is not a value there
    pytest.param(SENTINEL, "sm() is None", frozenset(), id="device-read-never-the-sentinel"),
    pytest.param(
        SENTINEL,
        "not (sm() is not None and 100 <= sm() < 110)",
        (NVIDIA | AMD) - {"sm100", "sm103"},
        id="device-read-negated",
    ),
    pytest.param(
        SENTINEL, 'arch() != "sm_120"', (NVIDIA | AMD) - {"sm120"}, id="f-string-of-a-read"
    ),
    pytest.param(SENTINEL, "arch() is None", frozenset(), id="f-string-never-the-sentinel"),
    pytest.param(SENTINEL, 'text() != "121"', (NVIDIA | AMD) - {"sm121"}, id="str-of-arithmetic"),
    # a handler of a class that is no builtin exception (or a name the project binds)
    # may catch; where the body completes no handler runs whatever it catches
    pytest.param(SENTINEL, "unknown_first() is None", EVERY, id="noop-an-unknown-call-first"),
    # the CUDA runtime's answer holds an error code no generation decides; a library's
    # attribute may be missing
    pytest.param(SENTINEL, "driver() is None", EVERY, id="noop-a-runtime-call-with-its-error"),
    pytest.param(SENTINEL, "divided() is None", EVERY, id="noop-division-may-raise"),
    pytest.param(SENTINEL, "unpacked() is None", EVERY, id="noop-unpacking-another-length"),
    pytest.param(SENTINEL, "shadowed() is None", EVERY, id="noop-a-str-the-project-binds"),
    pytest.param(
        HEADER + "class KeyError(Exception):\n    pass\n"
        "def f():\n    try:\n        return TABLE[cap]\n    except KeyError:\n"
        "        return None\n",
        "f() is None",
        (NVIDIA | AMD) - IN_TABLE,
        id="a-shadowed-exception-name-may-catch",
    ),
    pytest.param(
        HEADER + "from extlib import Oops\n"
        "def f():\n    try:\n        return TABLE[cap]\n    except Oops:\n"
        "        return 1\n    except KeyError:\n        return 2\n",
        "f() == 1",
        (NVIDIA | AMD) - IN_TABLE,
        id="an-unknown-handler-before-may-catch",
    ),
    # where nothing catches it the function raises: no value (unknown, as every path
    # raising is); on sm90 the body completes and the handler never runs
    pytest.param(
        HEADER + "def f():\n    try:\n        return TABLE[cap]\n    except ValueError:\n"
        "        return 1\n",
        "f() == 1 and cap == (9, 0)",
        frozenset(),
        id="a-handler-that-cannot-catch-never-runs",
    ),
]


@pytest.mark.parametrize(("source", "expr", "admitted"), CASES)
def test_try_outcomes(ruleset: RuleSet, source: str, expr: str, admitted: object) -> None:
    assert_can_be_true(ruleset, source, expr, admitted)
