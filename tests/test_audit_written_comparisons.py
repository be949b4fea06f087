"""A predicate called with a number written at the call (`current_platform.
has_device_capability(75)`) is a condition written there, as `capability >= 75` would be:
a function returning it is a row at that line, and so is a flag kept on an object
(`self.is_hopper = ...`), whose readers are its hops (issue 17 item 6: the row is at the
allowlist, not at the line reading an attribute that holds it), and so is a function's
local name for it, whatever the name says; a local name for other predicates' answers is
vocabulary, as any alias of predicates: the row is where it is used. An arch written as
text to a callee named for the arch (`_match_sm_version(dev, ["100", "103"])`) is a
comparison written there too. A predicate called
without a number decides in its own body: vocabulary, as before. A callee named for the
comparison it makes (Triton's `cuda_capability_geq(10, 0)`) is read the same way."""

from __future__ import annotations

import pytest

from gatecheck.audit import AuditReport
from gatecheck.audit.conditions import SlotKind, _in_predicate_definition, written_comparison
from tests.test_audit import MakeTree, audit

# vLLM's platform shape, read through its bodies: the capability as an int.
PLATFORM = """\
class Platform:
    @classmethod
    def get_device_capability(cls):
        major, minor = torch.cuda.get_device_capability()
        return major * 10 + minor

    @classmethod
    def has_device_capability(cls, capability):
        return cls.get_device_capability() >= capability

    @classmethod
    def is_device_capability(cls, capability):
        return cls.get_device_capability() == capability


current_platform = Platform()
ENABLED = os.environ.get("ENABLED") == "1"
"""
FIRST = 3 + PLATFORM.count("\n")  # the snippet's first line in mod.py

# (snippet after PLATFORM, rows as (line, class) with line 0 the snippet's first,
# hop lines likewise)
CASES = [
    pytest.param(
        "class Op:\n"
        "    def __init__(self):\n"
        "        self.is_hopper = current_platform.is_device_capability(90)\n"
        "\n"
        "    def run(self, x):\n"
        "        if self.is_hopper:\n"
        "            return 1\n"
        "        return 0\n",
        [(2, "probably-deliberate")],
        [5],
        id="flag-kept-on-the-object",
    ),
    pytest.param(
        "def is_fp8_marlin_supported():\n    return current_platform.has_device_capability(75)\n",
        [(1, "admits")],
        [],
        id="returned-support-flag",
    ),
    pytest.param(
        # A function's local name for a test written out there, however it is named:
        # the row is where the allowlist is spelled (a fix goes there), the answer
        # that reads it a hop (vLLM's `is_deep_gemm_supported`).
        "def is_deep_gemm_supported():\n"
        "    is_supported_arch = current_platform.is_device_capability(\n"
        "        90\n"
        "    ) or current_platform.is_device_capability(100)\n"
        "    return ENABLED and is_supported_arch\n",
        [(1, "likely-gap")],
        [4],
        id="local-name-for-a-written-test-is-the-row",
    ),
    pytest.param(
        # The arch spelled as text to a callee named for it (FlashInfer's
        # `_match_sm_version(a.device, ["100", "103"])`), kept in a local flag.
        "def _match_sm_version(device, versions):\n"
        "    return str(current_platform.get_device_capability()) in versions\n"
        "\n"
        "def runners(a, names):\n"
        "    is_sm_supported = _match_sm_version(a.device, ['100', '103'])\n"
        "    if 'cutlass' in names and is_sm_supported:\n"
        "        return 1\n"
        "    return 0\n",
        [(1, "probably-deliberate"), (4, "probably-deliberate")],
        [5],
        id="arch-text-given-to-a-callee-named-for-the-arch",
    ),
    pytest.param(
        # Local names for generations (vLLM's `gate_linear.py`): each test is listed as
        # a predicate's would be, and their use, where the allowlist is enumerated, too.
        "def router(bias):\n"
        "    is_hopper = current_platform.is_device_capability(90)\n"
        "    is_blackwell = current_platform.is_device_capability(100)\n"
        "    if (is_hopper or is_blackwell) and not bias:\n"
        "        return 'fast'\n"
        "    return 'slow'\n",
        [(1, "probably-deliberate"), (2, "likely-gap"), (3, "likely-gap")],
        [],
        id="local-names-for-generations-are-listed-beside-their-use",
    ),
    pytest.param(
        # The flag's readers tell sm120 apart in their own chain: not a gap (the row is
        # read with the tests reading it, as it would be at the `if`).
        "def _match_sm_version(device, versions):\n"
        "    return str(current_platform.get_device_capability()) in versions\n"
        "\n"
        "def heuristic(a):\n"
        "    is_sm_supported = _match_sm_version(a.device, ['100', '103', '110'])\n"
        "    is_sm12x = _match_sm_version(a.device, ['120', '121'])\n"
        "    if is_sm_supported:\n"
        "        return 'cutlass_sm10x'\n"
        "    elif is_sm12x:\n"
        "        return 'cutlass_sm12x'\n"
        "    return 'cublas'\n",
        # `is_sm12x` names generations: its test is listed, and so is its use.
        [(4, "probably-deliberate"), (5, "admits"), (8, "admits")],
        [6],
        id="a-flag-read-by-a-chain-with-the-generations-own-branch",
    ),
    pytest.param(
        # Triton's `cuda_capability_geq(10, 0)`: named for the comparison it makes, kept
        # under a name that is no predicate's (a kernel's constexpr): a row there, its
        # reader a hop; passed to an assert, a row too.
        "from triton.language.target_info import cuda_capability_geq\n"
        "def pick(x):\n"
        "    tl.static_assert(cuda_capability_geq(8, 6), 'needs sm86')\n"
        "    EPILOGUE = cuda_capability_geq(10, 0)\n"
        "    if EPILOGUE:\n"
        "        return 1\n"
        "    return 0\n",
        [(2, "admits"), (3, "admits")],
        [4],
        id="a-comparison-named-call-with-numbers",
    ),
    pytest.param(
        "def fp8_ok():\n    return current_platform.has_device_capability(capability=89)\n",
        [(1, "admits")],
        [],
        id="number-given-by-keyword",
    ),
]


def _rows(report: AuditReport) -> list[tuple[int, str]]:
    """(line counted from the snippet's first, class) of the rows in the snippet."""
    return sorted(
        (g.found.line - FIRST - 1, g.gate_class.value)
        for g in report.gates
        if g.path.name == "mod.py" and g.found.line > FIRST
    )


@pytest.mark.parametrize(("snippet", "rows", "hops"), CASES)
def test_the_row_is_where_the_number_is_written(
    make_tree: MakeTree, snippet: str, rows: list[tuple[int, str]], hops: list[int]
) -> None:
    report = audit(make_tree, "import os\n" + PLATFORM + snippet)
    assert _rows(report) == rows
    hop_lines = sorted(h.line - FIRST - 1 for h in report.hops if h.path.name == "mod.py")
    assert hop_lines == hops


NOOPS = [
    pytest.param(
        "class Op:\n"
        "    def __init__(self):\n"
        "        self.is_sm100 = is_sm100_supported()\n"
        "\n"
        "    def run(self, x):\n"
        "        if self.is_sm100:\n"
        "            return 1\n"
        "        return 0\n",
        [(5, "probably-deliberate")],
        id="a-predicate-without-a-number-decides-in-its-body",
    ),
    pytest.param(
        # Other predicates' answers under a local name: vocabulary, the row is its use.
        "def is_sm100_supported():\n"
        "    return current_platform.is_device_capability(100)\n"
        "\n"
        "def pick():\n"
        "    is_sm100 = ENABLED and is_sm100_supported()\n"
        "    if is_sm100:\n"
        "        return 1\n"
        "    return 0\n",
        [(1, "probably-deliberate"), (5, "probably-deliberate")],
        id="a-local-alias-of-a-predicate-is-read-where-used",
    ),
    pytest.param(
        "def is_wide(x):\n    return x > 4096\n\nWIDE = is_wide(8192)\n",
        [],
        id="a-number-the-device-does-not-compare",
    ),
    pytest.param(
        "PROPS = torch.cuda.get_device_properties(0)\n",
        [],
        id="a-call-that-is-no-predicate",
    ),
]


@pytest.mark.parametrize(("snippet", "rows"), NOOPS)
def test_noops(make_tree: MakeTree, snippet: str, rows: list[tuple[int, str]]) -> None:
    report = audit(make_tree, "import os\n" + PLATFORM + snippet)
    assert _rows(report) == rows


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("current_platform.has_device_capability(75)", True),
        ("p.is_device_capability_family(100)", True),
        ("is_arch(9, 0)", True),
        ("_is_sm(capability=(12, 0))", True),
        ("supports_arch([90, 100])", True),
        ("is_sm100_supported()", False),  # its allowlist is in its body
        ("has_device_capability(MIN_CAPABILITY)", False),  # a name, not a number
        ("get_device_capability(0)", False),  # not a predicate
        ("cuda_capability_geq(10, 0)", True),  # named for the comparison it makes
        ("target_info.cuda_capability_geq(8, 6)", True),
        ("capability_at_least(90)", True),
        ("torch.zeros(3)", False),  # a number that is no bound
        ("torch.eye(4)", False),  # `eye` ends in no comparison word
        ("x.view(-1, 8)", False),
        ("is_close(x, 0.5)", False),  # a float is no capability
        ("is_enabled(True)", False),  # nor is a bool
        ("_match_sm_version(a.device, '100')", True),  # an arch as text, named for it
        ("_match_sm_version(a.device, ['100', '103', '110'])", True),
        ("supports_arch('sm_90a')", True),
        ("matches_gfx(['gfx942', 'gfx950'])", True),
        ("get_arch_config('default')", False),  # text that is no arch
        ("lookup_table('100')", False),  # a callee not named for the arch
        ("check_cuda_arch(['90a', '100a'])", True),
        ("_resolve_target_arch(dev, supported=('sm_100a',))", False),  # it returns a name
    ],
)
def test_written_comparison(source: str, expected: bool) -> None:
    from astroid import extract_node

    assert written_comparison(extract_node(source)) is expected


PARAMETER_CASES = [
    pytest.param(
        "class FlashMLABackend:\n"
        "    @classmethod\n"
        "    def supports_compute_capability(cls, capability: 'DeviceCapability') -> bool:\n"
        "        return capability.major in [9, 10]\n",
        [(3, "likely-gap")],
        id="backend-allowlist-of-the-capability-it-is-given",
    ),
    pytest.param(
        "def supports_sm(sm_version):\n    return sm_version >= 100\n",
        [(1, "admits")],
        id="parameter-named-like-a-capability",
    ),
    # The device read in the predicate's own body: each call site decides, and the body
    # is listed as the predicate's definition.
    pytest.param(
        "def is_hopper_supported():\n"
        "    return torch.cuda.get_device_capability()[0] == 9\n"
        "\n"
        "if is_hopper_supported():\n"
        "    kernel = 'wgmma'\n",
        [(1, "probably-deliberate"), (3, "probably-deliberate")],
        id="predicate-reading-the-device-itself",
    ),
]


@pytest.mark.parametrize(("snippet", "rows"), PARAMETER_CASES)
def test_a_predicate_given_the_device_by_a_parameter_is_its_own_row(
    make_tree: MakeTree, snippet: str, rows: list[tuple[int, str]]
) -> None:
    """`supports_compute_capability(cls, capability)` of a backend chosen at run time: no
    call site the audit reads binds the parameter (it is taken to be the device's,
    assumed), so no call site decides, and the allowlist in the body is the row."""
    report = audit(make_tree, "import os\n" + PLATFORM + snippet)
    assert _rows(report) == rows


@pytest.mark.parametrize(
    ("source", "predicate"),
    [
        # A predicate's body, whatever its target (a name or an item).
        ("def is_hopper():\n    cache[0] = major() == 9  #@\n", True),
        ("_is_sm100 = major() == 10  #@\n", True),  # a module's name: vocabulary
        ("def pick():\n    is_sm100 = major() == 10  #@\n", True),  # names a generation
        ("def pick():\n    is_sm100 = _is_cuda and is_sm100_supported()  #@\n", True),
        # A local flag written out under a name that promises no generation: a gate.
        ("def pick():\n    is_supported_arch = major() >= 9  #@\n", False),
        ("def pick():\n    use_fast = major() >= 9  #@\n", False),  # no predicate's name
    ],
)
def test_which_assignments_are_a_predicates_own(source: str, predicate: bool) -> None:
    from astroid import extract_node

    assert _in_predicate_definition(extract_node(source), SlotKind.ASSIGN) is predicate
