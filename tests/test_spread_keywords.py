"""The names a call's `**` arguments may give, read from their text
(gatecheck/semantics/spread_keywords.py)."""

from __future__ import annotations

import astroid
import pytest
from astroid import nodes

from gatecheck.semantics.spread_keywords import spread_names


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ("f(x, y=1)", frozenset()),
        ("f(**{'extra': e})", frozenset({"extra"})),
        ("f(**({'extra': e} if e is not None else {}))", frozenset({"extra"})),
        ("f(**{}, **{'a': 1, 'b': 2})", frozenset({"a", "b"})),
        ("f(**({'a': 1} if c else ({'b': 2} if d else {})))", frozenset({"a", "b"})),
        # Any name: a mapping not read, a key not a constant string, a nested spread.
        ("f(**kwargs)", None),
        ("f(**dict(a=1))", None),
        ("f(**{key: 1})", None),
        ("f(**{'a': 1, **rest})", None),
        ("f(**({'a': 1} if c else opts))", None),
    ],
)
def test_spread_names(call: str, expected: frozenset[str] | None) -> None:
    node = astroid.extract_node(call)
    assert isinstance(node, nodes.Call)
    assert spread_names(node) == expected
