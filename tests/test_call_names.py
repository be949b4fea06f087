"""call_names matches calls in the reversed text, for speed: the same matches as the
plain pattern first written and the forward one it replaces, on a table of shapes and
on generated text."""

import random
import re
from collections.abc import Callable

import pytest

from gatecheck.semantics.call_names import (
    _LAUNCHED_REVERSED,
    attribute_called_name_set,
    call_arguments,
    called_name_set,
    called_names,
    import_shape,
    may_reach,
    reaching_words,
    reaching_words_in,
    spelled_words,
    spells_call_of,
)

# The pattern as first written: a name followed by `(`, not the name of a `def`.
PLAIN = re.compile(r"(?<!def )\b([A-Za-z_]\w*)\s*\(")
# The forward pattern the reversed one replaces (possessive, a lookahead).
FORWARD = re.compile(r"\b(?=[A-Za-z_])(?<!def )(\w++)\s*+\(")


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("f(x)", ["f"]),
        ("x.run (1)", ["run"]),
        ("def f(x): g(x)", ["g"]),
        ("async def f(): pass", []),
        ("undef f(x)", []),  # `def ` inside a longer word still hides the name
        ("class A(B): pass", ["A"]),
        ("9f(x)", []),  # not a name: it starts with a digit
        ("_priv(1)", ["_priv"]),
        ("éf(x)", []),  # the name must start with an ASCII letter or underscore
        ("fé(x)", ["fé"]),
        ("f\n(x)", ["f"]),
        ("f(g(h()))", ["f", "g", "h"]),
        ("f(x); f(y)", ["f", "f"]),
        ("# call(me)\n'say(it)'", ["call", "say"]),  # text, not code: a superset
        ("x = y", []),
        ("(f(x)", ["f"]),
        ("f((x))", ["f"]),
        ("def  f(x)", ["f"]),  # two spaces: not "def " just before the name
        ("xdef f(y)", []),
        ("f\u00a0(x)", ["f"]),  # any white space, as \\s reads it
        ("f(", ["f"]),
        ("(", []),
        ("ab1_(", ["ab1_"]),
        ("Z(", ["Z"]),
    ],
)
def test_called_names(source: str, expected: list[str]) -> None:
    assert called_names(source) == expected
    assert FORWARD.findall(source) == expected  # the table holds for the forward pattern
    assert called_name_set(source) == set(expected)


def test_same_matches_as_the_plain_and_forward_patterns() -> None:
    alphabet = "ab_9é d(ef\n\t)#.xZ\u00a0"
    rnd = random.Random(20)
    for _ in range(20_000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 24)))
        expected = [m.group(1) for m in PLAIN.finditer(text)]
        assert called_names(text) == expected, text
        assert FORWARD.findall(text) == expected, text
        assert called_name_set(text) == set(expected), text


@pytest.mark.parametrize(
    ("source", "names", "expected"),
    [
        ("f(x)", {"f"}, True),
        ("f(x)", {"g"}, False),
        ("def f(x): pass", {"f"}, False),
        ("f(x)", set(), False),
    ],
)
def test_spells_call_of(source: str, names: set[str], expected: bool) -> None:
    assert spells_call_of(source, names) is expected


@pytest.mark.parametrize(
    ("text", "launched"),
    [
        ("_kernel[grid](x, FAST=f)", True),
        ("ops._kernel[(triton.cdiv(n, 64),)](x)", True),
        ("_kernel [grid](x)", True),
        ("_kernel[lambda m: (m['B'],)](x)", False),  # brackets inside the grid: not read
        ("_kernel[grid] (x)", False),  # a space before the call's parenthesis
        ("y = _kernel[0]", False),
    ],
)
def test_a_triton_launch_spells_a_call_of_the_kernel(text: str, launched: bool) -> None:
    assert ("_kernel" in called_name_set(text)) is launched


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("replace(cfg, **changes)", ["cfg, **changes"]),
        ("x = dataclasses.replace(cfg, top_cc=f(9))", ["cfg, top_cc=f(9)"]),
        ('s.replace(")", "(")', ['")", "("']),  # brackets in strings do not count
        ("replace(cfg,  # ) closes nothing\n  **kw)", ["cfg,  # ) closes nothing\n  **kw"]),
        ("def replace(self, **kwargs):\n    pass", []),  # a definition, not a call
        ("# replace(cfg, **kw)\nx = 1", []),  # a comment's
        ("preplace(cfg, **kw)", []),  # another name
        ("replace(cfg, a=[1, (2, 3)]", ["cfg, a=[1, (2, 3)]"]),  # unclosed: to the end
    ],
)
def test_call_arguments(source: str, expected: list[str]) -> None:
    assert call_arguments(source, "replace") == expected


LAUNCHED_FORWARD = re.compile(r"\b([A-Za-z_]\w*)\s*\[[^\[\]\n]*\]\(")


def test_launches_read_in_the_reversed_text_as_the_forward_pattern_reads_them() -> None:
    alphabet = "ab_9é [](\n)x.,"
    rnd = random.Random(44)
    for _ in range(20_000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 24)))
        reversed_found = {n[::-1] for n in _LAUNCHED_REVERSED.findall(text[::-1])}
        assert reversed_found == set(LAUNCHED_FORWARD.findall(text)), text


# A method's call, as the forward pattern reads it: a dot, the name, `(`.
DOTTED = re.compile(r"\.\s*([A-Za-z_]\w*)\s*\(")


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("x.f(1)", {"f"}),
        ("f(1)", set()),  # a bare call runs no method
        ("x . f (1)", {"f"}),
        ("x.\nf(1)", {"f"}),
        ("a.b.c(d.e())", {"c", "e"}),
        ("x.9f(1)", set()),
        ("x.f[g](1)", set()),  # a launch's subscript: not `.f(`
        ("def f(self): pass", set()),
    ],
)
def test_attribute_called_names(source: str, expected: set[str]) -> None:
    assert attribute_called_name_set(source) == expected
    assert set(DOTTED.findall(source)) == expected


def test_attribute_calls_same_as_the_forward_pattern() -> None:
    alphabet = "ab_9é d(ef\n\t).xZ\u00a0"
    rnd = random.Random(64)
    for _ in range(20_000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 24)))
        assert attribute_called_name_set(text) == set(DOTTED.findall(text)), text
        assert attribute_called_name_set(text) <= called_name_set(text), text


def _inits(texts: dict[str, str]) -> Callable[[str], str | None]:
    return texts.get


@pytest.mark.parametrize(
    ("module", "inits", "expected"),
    [
        ("a.b.mod", {}, {"mod"}),
        ("a.b.mod", {"a.b": "from .mod import f\n"}, {"mod", "b"}),
        ("a.b.mod", {"a.b": "", "a": "from .b.mod import f as g\n"}, {"mod", "a"}),
        ("a.b.mod", {"a.b": "from .mod import *\n"}, {"mod", "b"}),
        ("a.b.mod", {"a.b": "from .mod import ff\n"}, {"mod"}),  # another name
        ("a.b.mod", {"a.b": "from .mod import fé, f_\n"}, {"mod"}),  # longer words
        ("a.b.mod", {"a.b": "__all__ = ['f']\n"}, {"mod", "b"}),
        ("mod", {}, {"mod"}),
    ],
)
def test_reaching_words(module: str, inits: dict[str, str], expected: set[str]) -> None:
    assert reaching_words(module, "f", _inits(inits)) == expected
    # Each package's words made once (a search of many names): the same answer.
    words = {package: spelled_words(text) for package, text in inits.items()}
    assert reaching_words_in(module, "f", words.get) == expected


def test_spelled_words_are_what_a_bounded_search_finds() -> None:
    alphabet = "ab_9é d(ef\n\t).xZ*\u00a0"
    rnd = random.Random(65)
    for _ in range(20_000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 24)))
        word = "".join(rnd.choice("ab_9é") for _ in range(rnd.randint(1, 3)))
        found = spelled_words(text)
        assert found is not None
        assert (word in found) is (re.search(rf"\b{re.escape(word)}\b", text) is not None)
    assert spelled_words(None) is None


@pytest.mark.parametrize(
    ("text", "module", "reaches"),
    [
        ("from a.b.mod import f\nf(1)", "x.y", True),
        ("from .mod import f\nf(1)", "a.b.user", True),
        ("from .. import f\nf(1)", "a.b.user", True),  # `b` re-exports it: own package
        ("def f(x):\n    return x\nf(1)", "x.other", False),  # its own f
        ("from x.util import f\nf(1)", "x.y", False),  # another module's f
        ("from x.util import *\nf(1)", "x.y", True),  # anything may come from a star
        ("m = load()\nm.f(1)", "x.y", True),  # a call on something: may be it
        ("import a.b.mod as m\nm.f(1)", "x.y", True),
        ("from a import b\nb.mod.f(1)", "x.y", True),
        ("print('model')\nf(1)", "x.y", False),  # `mod` inside a longer word
    ],
)
def test_may_reach(text: str, module: str, reaches: bool) -> None:
    assert may_reach(text, module, "f", {"mod", "b"}) is reaches
    # The text's import shape made once (a search of many names): the same answer.
    shape = import_shape(text)
    assert may_reach(text, module, "f", {"mod", "b"}, shape=shape) is reaches
