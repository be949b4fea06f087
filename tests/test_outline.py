"""loading/outline.py answers "does this dotted name name a function of the project?"
with the standard library's parser, as the astroid resolver of gate functions does
(gates/feature_gates.resolve_dotted_function): every row is checked against both."""

from __future__ import annotations

import pytest

from gatecheck.gates.feature_gates import resolve_dotted_function
from gatecheck.loading.outline import names_function
from gatecheck.semantics.admitted import in_memory_project

MODULES = {
    "pkg.comm": """\
        import os
        from pkg.other import imported


        def plain():
            return 1


        async def later():
            return 2


        if os.environ.get("X"):
            def in_if():
                return 3
        else:
            class InElse:
                def method(self):
                    return 4

        try:
            def in_try():
                return 5
        except ImportError:
            in_try = None

        for _ in ():
            def in_loop():
                return 6


        def twice():
            return 7


        class twice:  # the last def of a name is the one astroid's locals end with
            pass


        class Outer:
            if True:
                def guarded(self):
                    return 8

            class Inner:
                async def deep(self):
                    return 9


        def host():
            def nested():
                return 10

            return nested


        renamed = plain
        """,
    "pkg.broken": "def broken(:\n",
    "pkg.__init__": "def package_level():\n    return 0\n",
}


@pytest.mark.parametrize(
    ("dotted", "expected"),
    [
        ("pkg.comm.plain", True),
        ("pkg.comm.later", True),
        ("pkg.comm.in_if", True),
        ("pkg.comm.InElse.method", True),
        ("pkg.comm.in_try", True),
        ("pkg.comm.in_loop", True),
        ("pkg.comm.twice", False),  # a class, defined last
        ("pkg.comm.Outer.guarded", True),
        ("pkg.comm.Outer.Inner.deep", True),
        ("pkg.comm.Outer", False),
        ("pkg.comm.host.nested", True),
        ("pkg.comm.imported", False),  # bound by an import, not defined here
        ("pkg.comm.renamed", False),  # an assignment is no def
        ("pkg.comm.os", False),
        ("pkg.comm.missing", False),
        ("pkg.broken.broken", False),  # unreadable module: no longer prefix either
        ("pkg.package_level", True),
        ("pkg.nothing.plain", False),
        ("other.comm.plain", False),
        ("pkg", False),
    ],
)
def test_names_function_agrees_with_astroid(dotted: str, expected: bool) -> None:
    project = in_memory_project(MODULES)
    assert names_function(project, dotted) is expected
    assert (resolve_dotted_function(project, dotted) is not None) is expected
