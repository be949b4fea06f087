"""A parameter read inside its function takes the value every caller in the project passes
(gatecheck/semantics/callers.py); where a caller cannot be resolved the parameter stays
unknown (or its naming convention, marked assumed). The audit follows callers; `check`
does not (its answers are kept)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from gatecheck.audit import run_audit
from gatecheck.config.loader import load_ruleset
from gatecheck.semantics.call_names import MAX_CALLER_FILES, MAX_METHOD_CALLER_FILES

MakeTree = Callable[[Mapping[str, str]], Path]

DEVICE = "import torch\n\n\ndef major():\n    return torch.cuda.get_device_capability()[0]\n"


def rows(make_tree: MakeTree, source: str, other: str = "") -> list[tuple[int, tuple[str, ...]]]:
    """(line, admitted generations) of the gates in mod.py, audited for sm120."""
    files = {"pkg/__init__.py": "", "pkg/dev.py": DEVICE, "pkg/mod.py": source}
    if other:
        files["pkg/other.py"] = other
    report = run_audit([make_tree(files)], load_ruleset([]), "sm120")
    return sorted(
        (g.found.line, tuple(sorted(g.admits))) for g in report.gates if g.path.name == "mod.py"
    )


MAJORS_10_11 = ("sm100", "sm103", "sm110")
NVIDIA = ("sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm90", "sm100", "sm103", "sm110")
ALL = tuple(sorted((*NVIDIA, "sm120", "sm121", "gfx90a", "gfx942", "gfx950")))

CASES = [
    pytest.param(
        "from pkg.dev import major\n\n"
        "def _pick(arch):\n    if arch in [100, 110]:\n        return 1\n\n"
        "def run():\n    return _pick(major() * 10)\n",
        "",
        [(4, MAJORS_10_11)],
        id="every-caller-passes-the-device-major",
    ),
    pytest.param(
        "from pkg.dev import major\n\n"
        "def _fwd(x, _compute_capability=None):\n"
        "    compute_capability = major() if _compute_capability is None else _compute_capability\n"
        "    assert compute_capability in [10, 11]\n\n"
        "def run():\n    return _fwd(1)\n",
        "",
        [(5, MAJORS_10_11)],
        id="no-caller-passes-it-so-the-default",
    ),
    pytest.param(
        "class Post:\n    def __init__(self, arch):\n        assert arch in [100, 110]\n",
        "from pkg.dev import major\nfrom pkg.mod import Post\n\n"
        "def run():\n    arch = major() * 10\n    return Post(arch)\n",
        [(3, MAJORS_10_11)],
        id="constructor-callers-in-another-module",
    ),
    pytest.param(
        "def supports(compute_capability):\n    return 100 <= compute_capability < 120\n",
        "",
        [(2, MAJORS_10_11)],
        id="no-caller-a-capability-by-its-name-read-as-the-number-it-is-compared-with",
    ),
    pytest.param(
        "from pkg.dev import major\n\n"
        "def _pick(arch):\n    if arch in [100, 110]:\n        return 1\n\n"
        "def run():\n    return _pick(major() * 10) + _pick(arch=major() * 10)\n",
        "",
        [(4, MAJORS_10_11)],
        id="keyword-and-positional-callers-agree",
    ),
    pytest.param(
        "import torch\n\n"
        "def _constraint(major, minor):\n    if major >= 10:\n        return 8\n    return 4\n\n"
        "def run():\n    return _constraint(*torch.cuda.get_device_capability())\n",
        "",
        [(4, ("sm100", "sm103", "sm110", "sm120", "sm121"))],
        id="the-device-capability-unpacked-into-major-and-minor",
    ),
    pytest.param(
        "from pkg.dev import major\n\n"
        "def _launch(arch):\n    if arch == 4:\n        return 1\n\n"
        "def run(fast):\n    arch = 4 if major() == 10 else (1 if fast else 2)\n"
        "    return _launch(arch)\n",
        "",
        [(4, ("sm100", "sm103")), (8, ("sm100", "sm103"))],
        id="a-caller-passes-one-of-a-few-constants",  # 4 on Blackwell, 1 or 2 elsewhere
    ),
    pytest.param(
        "from pkg.dev import major\n\n"
        "class Kernel:\n    @classmethod\n    def pick(cls, arch):\n"
        "        if arch in [100, 110]:\n            return 1\n\n"
        "def run(kernel):\n    return kernel.pick(major() * 10)\n",
        "",
        [(6, MAJORS_10_11)],
        id="a-method-called-on-an-unknown-receiver-that-may-be-its-class",
    ),
    pytest.param(
        "from pkg.dev import major\n\n"
        "class Base:\n    def run(self):\n        return self.pick(major() * 10)\n\n"
        "    def pick(self, arch):\n        return 0\n\n"
        "class Sub(Base):\n    def pick(self, arch):\n        if arch in [100, 110]:\n"
        "            return 1\n",
        "",
        [(12, MAJORS_10_11)],
        id="the-base-calls-the-method-an-override-replaces",
    ),
    pytest.param(
        "from pkg.dev import major\n\n"
        "class Kernel:\n    def pick(self, arch):\n"
        "        if arch in [100, 110]:\n            return 1\n\n"
        "class Other:\n    def pick(self, arch):\n        return arch\n\n"
        "def run(k, n):\n    return k.pick(major() * 10) + Other().pick(n) + k.pick(1, n)\n",
        "",
        [(5, MAJORS_10_11)],
        id="calls-that-reach-another-class-or-cannot-bind-are-not-callers",
    ),
    pytest.param(
        "from pkg.dev import major\n\n"
        "class Kernel:\n    @classmethod\n    def ok(cls, compute_capability=None):\n"
        "        if compute_capability is not None and compute_capability < 100:\n"
        "            return False\n        return True\n\n"
        "def choose(kernel):\n    return kernel.ok(major() * 10)\n\n"
        "def anywhere():\n    return Kernel.ok()\n",
        "",
        # True (refused) below 100 only; a caller leaving the default is never refused.
        [(6, ALL)],
        id="one-caller-leaves-the-none-default-another-passes-the-device",
    ),
    pytest.param(
        "from pkg.dev import major\n\n"
        "class Kernel:\n    @classmethod\n    def ok(cls, arch=None):\n"
        "        if arch in [100, 110]:\n            return 1\n\n"
        "class Fallback:\n    @classmethod\n    def ok(cls, arch=None):\n"
        "        return cls.primary.ok(arch)\n\n"
        "def choose(kernel):\n    return kernel.ok(major() * 10)\n",
        "",
        # Fallback.ok may call itself through `cls.primary` (unknown): passing its own
        # parameter on adds no value, so its callers' is the device's.
        [(6, MAJORS_10_11)],
        id="a-method-passing-its-parameter-on-to-one-of-its-name",
    ),
    pytest.param(
        "from pkg.dev import major\n\n"
        "class Kernel:\n    def launch(self, arch=0):\n        if arch == 4:\n"
        "            return 1\n\n"
        "class Other:\n    def launch(self, arch=0):\n        return 0\n\n"
        "def run(fast):\n    k = Kernel() if fast else Other()\n"
        "    arch = 4 if major() == 10 else (1 if fast else 2)\n"
        "    return Kernel().launch() + k.launch(arch)\n",
        "",
        # `k.launch` is one of two classes' methods (values.OneOf): a caller all the same.
        # Left out, the default's caller alone made `arch` 0 everywhere.
        [(5, ("sm100", "sm103")), (14, ("sm100", "sm103"))],
        id="a-caller-through-one-of-two-receivers",
    ),
    pytest.param(
        "import triton\nfrom pkg.dev import major\n\n"
        "@triton.jit\ndef _kernel(x, ARCH):\n    if ARCH in [100, 110]:\n        x = 1\n\n"
        "def run(x):\n    _kernel[(4,)](x, ARCH=major() * 10, num_warps=4)\n",
        "",
        # A Triton launch binds the kernel's parameters as a call does.
        [(6, MAJORS_10_11)],
        id="a-triton-kernel-launched-with-the-device-major",
    ),
]


@pytest.mark.parametrize(("source", "other", "expected"), CASES)
def test_parameter_from_callers(
    make_tree: MakeTree, source: str, other: str, expected: list[tuple[int, tuple[str, ...]]]
) -> None:
    assert rows(make_tree, source, other) == expected


# Some callers cannot be read (a parameter of a public function, whose callers are the
# package's users; unpacked arguments) and every other passes a value read from the
# device: the parameter is taken to be what those pass, marked assumed (FlashInfer's
# `backend_cfg.supported(arch)` with `arch = major * 10 + minor` beside a public
# `candidates(arch)` passing its own parameter on).
SOME_CALLERS = [
    pytest.param(
        "from pkg.dev import major\n\n"
        "def _pick(arch):\n    if arch in [100, 110]:\n        return 1\n\n"
        "def run(n):\n    return _pick(major() * 10) + _pick(n)\n",
        [(4, MAJORS_10_11)],
        id="a-caller-passing-an-unknown-value",
    ),
    pytest.param(
        "from pkg.dev import major\n\n"
        "class Kernel:\n    def pick(self, arch):\n        if arch in [100, 110]:\n"
        "            return 1\n\n"
        "def run(k: Kernel, n):\n    return k.pick(major() * 10) + k.pick(n)\n",
        [(5, MAJORS_10_11)],
        id="a-method-caller-passing-an-unknown-value",
    ),
    pytest.param(
        "from pkg.dev import major\n\n"
        "class Kernel:\n    def pick(self, arch):\n        if arch in [100, 110]:\n"
        "            return 1\n\n"
        "def run(k, args):\n    return k.pick(major() * 10) + k.pick(*args)\n",
        [(5, MAJORS_10_11)],
        id="a-method-caller-unpacking-unknown-arguments",
    ),
    pytest.param(
        "import torch\n\n"
        "class A:\n    @classmethod\n    def supported(cls, arch: int) -> bool:\n"
        "        return arch == 103\n\n"
        "class B:\n    @classmethod\n    def supported(cls, arch: int) -> bool:\n"
        "        return arch in (100, 103)\n\n"
        "def layer(configs):\n    cc = torch.cuda.get_device_capability()\n"
        "    arch = cc[0] * 10 + cc[1]\n"
        "    return [c for c in configs if c.supported(arch)]\n\n"
        "def candidates(configs, arch):\n"
        "    return [c for c in configs if c.__class__.supported(arch)]\n",
        [(6, ("sm103",)), (11, ("sm100", "sm103"))],
        id="classmethods-of-several-backends-on-unknown-receivers",
    ),
]


@pytest.mark.parametrize(("source", "expected"), SOME_CALLERS)
def test_parameter_from_the_callers_read(
    make_tree: MakeTree, source: str, expected: list[tuple[int, tuple[str, ...]]]
) -> None:
    assert rows(make_tree, source) == expected


# Each refusal: the callers are not all known, so the parameter is not the device's and
# the condition is no gate (not listed).
NOOPS = [
    pytest.param(
        "from pkg.dev import major\n\n"
        "def _pick(arch):\n    if arch in [100, 110]:\n        return 1\n\n"
        "def run(n):\n    return _pick(90) + _pick(n)\n",
        # The caller read passes a constant, not the device's: nothing says what the
        # others pass.
        id="a-constant-beside-a-caller-passing-an-unknown-value",
    ),
    pytest.param(
        "from pkg.dev import major\n\n"
        "def _pick(limit):\n    if limit in [100, 110]:\n        return 1\n\n"
        "def run(n):\n    return _pick(major() * 10) + _pick(n)\n",
        # Where callers are missing, only a parameter named for the device is taken to be
        # it: a value some caller computes from the device is not the device.
        id="a-parameter-not-named-for-the-device-beside-an-unknown-value",
    ),
    pytest.param(
        "from pkg.dev import major\n\n"
        "def _pick(arch):\n    if arch in [100, 110]:\n        return 1\n\n"
        "def run(n, m):\n    return _pick(n) + _pick(m) + _pick(major() * 10) + _pick(7)\n",
        # In any order: the device's beside a constant, after two unknown ones.
        id="the-device-and-a-constant-after-unknown-values",
    ),
    pytest.param(
        "from pkg.dev import major\n\n"
        "def _pick(arch):\n    if arch in [100, 110]:\n        return 1\n\n"
        "def run(obj):\n    return _pick(major() * 10) + obj._pick(90)\n",
        id="a-call-on-an-unresolved-receiver-may-be-a-caller",
    ),
    pytest.param(
        "from pkg.dev import major\n\n"
        "def _pick(arch):\n    if arch in [100, 110]:\n        return 1\n\n"
        "def run(args):\n    return _pick(*args)\n",
        id="star-arguments-of-unknown-length-are-not-read",
    ),
    pytest.param(
        "def _pick(arch):\n    if arch in [100, 110]:\n        return 1\n",
        id="no-caller-in-the-project",
    ),
    pytest.param(
        "from pkg.dev import major\n\n"
        "def _pick(arch):\n    if arch in [100, 110]:\n        return 1\n\n"
        "def run():\n    return _pick[0](major() * 10)\n",
        # Subscripting a plain function raises: `_pick[0](...)` is no call of it (a
        # launch is read only for a decorated one), so `_pick` has no caller.
        id="a-subscript-call-of-a-plain-function-is-no-launch",
    ),
]


NOOPS.append(
    pytest.param(
        "from pkg.dev import major\n\n"
        "class Kernel:\n    def pick(self, mode):\n        if mode in [100, 110]:\n"
        "            return 1\n\n"
        "def run(k):\n    return k.pick(major() * 10)\n",
        # A bound on the search's cost (callers._DEVICE_WORDS): a method's callers are
        # searched for a parameter named for the device only.
        id="a-method-parameter-not-named-for-the-device-is-not-searched",
    )
)


@pytest.mark.parametrize("source", NOOPS)
def test_callers_not_all_known(make_tree: MakeTree, source: str) -> None:
    assert rows(make_tree, source) == []


METHOD = (
    "from pkg.dev import major\n\n"
    "class Frost:\n    @classmethod\n    def supported(cls, arch: int) -> bool:\n"
    "        return arch in (107, 120)\n\n"
    "def pick(configs):\n    arch = major() * 10\n"
    "    return [c for c in configs if c.supported(arch)]\n"
)


def _spelling(make_tree: MakeTree, call: str, files: int) -> list[tuple[int, tuple[str, ...]]]:
    tree: dict[str, str] = {"pkg/__init__.py": "", "pkg/dev.py": DEVICE, "pkg/mod.py": METHOD}
    for i in range(files):
        tree[f"pkg/user_{i}.py"] = f"def use(x, o):\n    return {call}\n"
    report = run_audit([make_tree(tree)], load_ruleset([]), "sm120")
    return sorted(
        (g.found.line, tuple(sorted(g.admits))) for g in report.gates if g.path.name == "mod.py"
    )


def test_a_method_search_counts_the_files_spelling_a_method_call(make_tree: MakeTree) -> None:
    """Only `x.supported(...)` can run a method: the files calling an unrelated
    function `supported(...)` (FlashInfer 0.7.4: 40 files spell `supported(`, 12
    `.supported(`) neither count against MAX_METHOD_CALLER_FILES nor are read."""
    many = MAX_METHOD_CALLER_FILES + 6
    assert _spelling(make_tree, "supported(x)", many) == [(6, ("sm120", "sm121"))]


def test_a_method_spelled_as_a_call_in_too_many_files_is_not_searched(
    make_tree: MakeTree,
) -> None:
    # The bound still holds for the calls that may run it: no caller read, no gate.
    many = MAX_METHOD_CALLER_FILES + 1
    assert _spelling(make_tree, "o.supported(x)", many) == []


# `limit`, a name not the device's: a caller passing what cannot be read leaves it
# unknown (no DeviceFromSomeCallers); the module is searched for its other function.
PICK = (
    "import torch\n\n\ndef _pick(limit):\n    if limit in [100, 110]:\n        return 1\n\n\n"
    "def cap():\n    return torch.cuda.get_device_capability()\n"
)
RUN = "from pkg.dev import major\nfrom pkg.mod import _pick\n\n\ndef run():\n    return _pick(major() * 10)\n"


def _with_others(
    make_tree: MakeTree, others: Mapping[str, str]
) -> list[tuple[int, tuple[str, ...]]]:
    tree = {"pkg/__init__.py": "", "pkg/dev.py": DEVICE, "pkg/mod.py": PICK, "pkg/run.py": RUN}
    tree.update(others)
    report = run_audit([make_tree(tree)], load_ruleset([]), "sm120")
    return sorted(
        (g.found.line, tuple(sorted(g.admits))) for g in report.gates if g.path.name == "mod.py"
    )


OWN_PICK = "def _pick(x):\n    return x\n\n\ndef use(n):\n    return _pick(n)\n"


def test_a_function_search_reads_only_the_files_that_can_import_it(make_tree: MakeTree) -> None:
    """Files calling their own function of the same name (FlashInfer 0.7.4: 59 files
    call a `library_name(...)`, each its module's) neither count against
    MAX_CALLER_FILES nor are read: they spell no import of `pkg.mod`."""
    others = {f"pkg/other_{i}.py": OWN_PICK for i in range(MAX_CALLER_FILES + 2)}
    assert _with_others(make_tree, others) == [(5, MAJORS_10_11)]


# Each file below is read: its call passes what cannot be read (or cannot be resolved),
# so the parameter is unknown and nothing is listed.
IMPORTS_PICK = "from pkg.mod import _pick\n\n\ndef use(n):\n    return _pick(n)\n"
STAR_PICK = "from pkg.util import *\n\n\ndef use(n):\n    return _pick(n)\n"
PACKAGE_PICK = "from pkg import _pick\n\n\ndef use(n):\n    return _pick(n)\n"


@pytest.mark.parametrize(
    "others",
    [
        pytest.param(
            {f"pkg/user_{i}.py": IMPORTS_PICK for i in range(MAX_CALLER_FILES + 1)},
            id="importers-past-the-bound",  # the search gives up, as before
        ),
        pytest.param(
            {"pkg/util.py": "from pkg.mod import _pick\n", "pkg/star.py": STAR_PICK},
            id="a-star-import-may-bring-it",
        ),
        pytest.param(
            {"pkg/dyn.py": "def use(m, n):\n    return m._pick(n)\n"},
            id="a-call-on-an-unknown-module-may-be-it",
        ),
        pytest.param(
            {"pkg/__init__.py": "from pkg.mod import _pick\n", "pkg/sub.py": PACKAGE_PICK},
            id="re-exported-by-the-package",  # its importers spell `pkg`
        ),
    ],
)
def test_a_function_search_still_reads_what_may_call_it(
    make_tree: MakeTree, others: Mapping[str, str]
) -> None:
    assert _with_others(make_tree, others) == []
