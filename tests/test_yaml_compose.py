"""libyaml composes the nodes PyYAML's own parser composes (tags, values and marks: what the
loader reads) for every YAML file of the repo, the recorded shipped rules among them; any
text not recorded is composed by PyYAML's parser, which libyaml would not always match."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml

from gatecheck.config.loader import compose_yaml
from tests.conftest import FIXTURES, REPO

pytestmark = pytest.mark.skipif(
    not hasattr(yaml, "CSafeLoader"), reason="PyYAML built without libyaml: nothing to compare"
)


def _shape(node: yaml.Node | None) -> object:
    """What the loader reads of a node (not `style` / `flow_style`: libyaml spells a plain
    scalar's style '' where PyYAML has None, and nothing here reads either)."""
    if node is None:
        return None
    marks = (node.start_mark.line, node.start_mark.column, node.start_mark.index)
    marks += (node.end_mark.line, node.end_mark.column, node.end_mark.index)
    if isinstance(node, yaml.ScalarNode):
        return ("scalar", node.tag, node.value, marks)
    if isinstance(node, yaml.MappingNode):
        return ("map", node.tag, marks, [(_shape(k), _shape(v)) for k, v in node.value])
    return ("seq", node.tag, marks, [_shape(c) for c in node.value])


def _outcome(loader: type, text: str) -> object:
    try:
        return _shape(yaml.compose(text, Loader=loader))
    except (yaml.YAMLError, RecursionError) as err:
        return ("error", type(err).__name__)


def _yaml_files() -> list[Path]:
    found = sorted((REPO / "rules").glob("*.yaml")) + sorted(FIXTURES.rglob("*.yaml"))
    found += sorted((REPO / "benchmarks").rglob("*.yaml"))
    # Not what a local install put beside them (benchmarks/.semgrep-venv, git-ignored).
    return [p for p in found if not any(part.startswith(".") for part in p.relative_to(REPO).parts)]


@pytest.mark.parametrize("path", _yaml_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_same_nodes_for_every_yaml_file_of_the_repo(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert _outcome(yaml.CSafeLoader, text) == _outcome(yaml.SafeLoader, text)
    assert _shape(compose_yaml(text, recorded=True)) == _outcome(yaml.SafeLoader, text)


TEXTS = [
    "",
    "---\n",
    "a: 1\n",
    "a: [1, 2, {b: c}]\n",
    "a: &x {b: 1}\nc: *x\n",
    "a: !!str 1\nb: !!int '2'\n",
    "a: |\n  two\n  lines\n",
    "a: >-\n  folded\n  text\n",
    "'quoted key': \"é \\u00e9 \\t\"\n",
    "a: 1\na: 2\n",
    "- a\n- - b\n  - c\n",
    "a:\n\t- b\n",  # a tab where indentation is
    "a: b: c\n",
    "a: [1, 2\n",
    "a: 'unterminated\n",
    "? complex\n: key\n",
    "%YAML 1.1\n---\na: 1\n",
    "a: 1\n---\nb: 2\n",
    "a: \x07\n",
    "k" * 2000 + ": v\n",
    "# only a comment\n",
    "a: 1 # trailing\n",
    "a: 0x1F\nb: 1_000\nc: .inf\nd: ~\ne: yes\n",
    "a: \u2028b\n",
    "a: [" * 60 + "]" * 60 + "\n",
]


def test_the_shipped_rules_are_recorded() -> None:
    """The fast path is taken for them (a cold check's rules)."""
    from gatecheck.config.loader import validation_digest
    from gatecheck.config.shipped_data import VALIDATED

    schemas = {"sglang.yaml": "rules", "generations.yaml": "registry"}
    for name, schema in schemas.items():
        text = (REPO / "rules" / name).read_text(encoding="utf-8")
        assert validation_digest(schema, text) in VALIDATED


def test_libyaml_accepts_a_text_pyyaml_refuses() -> None:
    """Why only recorded texts take libyaml: here the two parsers disagree."""
    text = "a:- \xe9\t*x|!!str "
    assert _outcome(yaml.CSafeLoader, text) != _outcome(yaml.SafeLoader, text)
    with pytest.raises(yaml.YAMLError):
        compose_yaml(text)


@pytest.mark.parametrize("text", TEXTS)
def test_compose_yaml_answers_as_the_pure_python_parser(text: str) -> None:
    expected = _outcome(yaml.SafeLoader, text)
    try:
        got: object = _shape(compose_yaml(text))
    except (yaml.YAMLError, RecursionError) as err:
        got = ("error", type(err).__name__)
    assert got == expected


def test_compose_yaml_on_generated_texts() -> None:
    rng = random.Random(2026)
    pieces = ["a", ":", " ", "\n", "- ", "[", "]", "{", "}", ",", "'", '"', "#", "&x", "*x"]
    pieces += ["!!str ", "|", ">", "  ", "\t", "é", "1", "?", "---\n", "~"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(16)))
        expected = _outcome(yaml.SafeLoader, text)
        try:
            got: object = _shape(compose_yaml(text))
        except (yaml.YAMLError, RecursionError) as err:
            got = ("error", type(err).__name__)
        assert got == expected, repr(text)
