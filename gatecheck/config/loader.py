"""Load the generation registry and rule files into typed, validated config objects.

Files are read with PyYAML's safe composer only: we get nodes with positions and build
plain data from them ourselves, so no tag can construct an object and every message can
point at a line and column. Problems are collected across all files and raised together
as one ConfigErrors, sorted by position (import-linter style: keep going, report all).
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import yaml

from gatecheck import resources
from gatecheck.config import shipped_data
from gatecheck.config.model import (
    ConfigError,
    ConfigErrors,
    Feature,
    FeatureExample,
    Generation,
    Registry,
    RuleSet,
    SourceLocation,
    VocabularyEntry,
)
from gatecheck.config.schema import (
    NON_BLANK_PATTERN,
    PATTERN_HINTS,
    REGISTRY_SCHEMA,
    RULE_FILE_SCHEMA,
)
from gatecheck.config.sources import config_error as _error
from gatecheck.config.sources import sources
from gatecheck.safe_io import CONFIG_BYTES, read_regular

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

# The validation digests of the shipped files (loader.validation_digest), recorded with
# them by config/shipped.py. Empty while the module is being made again (the command
# writing it truncates it first): then every file is validated.
VALIDATED: frozenset[str] = getattr(shipped_data, "VALIDATED", frozenset())

_YAML_TAG = "tag:yaml.org,2002:"
# Plain data only: !!python/*, !!binary, !!set, custom tags... are refused, never constructed.
_SCALAR_TAGS = frozenset(
    _YAML_TAG + t for t in ("str", "int", "float", "bool", "null", "timestamp")
)
_TEXT_TAGS = frozenset(_YAML_TAG + t for t in ("str", "timestamp"))
_SEQUENCE_TAG = _YAML_TAG + "seq"
_MAPPING_TAG = _YAML_TAG + "map"
_MERGE_TAG = _YAML_TAG + "merge"


_SCHEMAS: dict[str, Any] = {"rules": RULE_FILE_SCHEMA, "registry": REGISTRY_SCHEMA}


@functools.cache
def _validator(schema_name: str) -> Draft202012Validator:
    # jsonschema is imported on first use: a run whose rules come from the cache
    # (unchanged files) or are all recorded as valid (below) never needs it.
    from jsonschema import Draft202012Validator

    return Draft202012Validator(_SCHEMAS[schema_name])


def validation_digest(schema_name: str, text: str) -> str:
    """What a file's schema validation depends on: the schema and the file's text.
    config/shipped_data.py records the digests of files that passed it (the shipped
    ones); a file with one of them passes again without jsonschema being imported
    (about 80 ms, a tenth of a cold check)."""
    schema = json.dumps(_SCHEMAS[schema_name], sort_keys=True)
    material = f"{schema_name}\0{schema}\0{text}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(material).hexdigest()


PathPart = str | int
NodePath = tuple[PathPart, ...]
Entry = dict[str, object]


def load_registry(path: Path | None = None) -> Registry:
    """Load the generation registry (default: the shipped `rules/generations.yaml`)."""
    errors: list[ConfigError] = []
    loader = _Loader(errors)
    loader.add_registry(Path(path) if path is not None else resources.registry_path())
    _raise_if_any(errors)
    return loader.registry()


def load_ruleset(
    rule_paths: Sequence[Path] | None = None, *, trusted: frozenset[str] = VALIDATED
) -> RuleSet:
    """Load the shipped rules, or the shipped registry plus the given rule files/directories.
    `trusted`: the validation digests of texts known to pass their schema (by default the
    shipped files', recorded in config/shipped_data.py); empty, every file is validated."""
    errors: list[ConfigError] = []
    registry_file = resources.registry_path()
    files = sources(rule_paths, registry_file, errors)
    loader = _Loader(errors, trusted)
    loader.add_registry(registry_file)
    documents = [doc for path in files if (doc := _parse(path, "rules", errors, trusted))]
    # Generations first, so a feature may require a generation another file adds.
    for doc in documents:
        loader.add_generations(doc)
    for doc in documents:
        loader.check_rules(doc)
    _raise_if_any(errors)
    return loader.ruleset(documents, sources=(registry_file, *files))


def _raise_if_any(errors: list[ConfigError]) -> None:
    if errors:
        # An aliased YAML node is checked once per use: report each problem once.
        unique = list(dict.fromkeys(errors))
        raise ConfigErrors(sorted(unique, key=lambda e: (str(e.path), e.line, e.column)))


# --- reading one file into plain data ---------------------------------------------------


@dataclass
class _Document:
    """One parsed file: its composed node tree (for positions) and the plain data read from it."""

    path: Path
    root: yaml.Node
    data: object
    # Nodes already reported as unreadable (a refused tag...): schema errors there are noise.
    broken: set[int] = field(default_factory=set)

    def node(self, path: Iterable[PathPart]) -> yaml.Node:
        return self._walk(path)[-1]

    def key_node(self, path: NodePath) -> yaml.Node:
        """The key node naming `path[-1]` in its mapping (for unknown or duplicate keys)."""
        parent = self.node(path[:-1])
        return _child(parent, path[-1], want_key=True) or parent

    def is_broken(self, path: NodePath) -> bool:
        return any(id(node) in self.broken for node in self._walk(path))

    def error(self, node: yaml.Node, message: str) -> ConfigError:
        mark = node.start_mark
        return _error(self.path, mark.line + 1, mark.column + 1, message)

    def location(self, node: yaml.Node) -> SourceLocation:
        mark = node.start_mark
        return SourceLocation(self.path, mark.line + 1, mark.column + 1)

    def _walk(self, path: Iterable[PathPart]) -> list[yaml.Node]:
        nodes = [self.root]
        for part in path:
            child = _child(nodes[-1], part)
            if child is None:
                break
            nodes.append(child)
        return nodes


def _child(node: yaml.Node, part: PathPart, *, want_key: bool = False) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        # Last match: on a duplicate key, the data holds the last value (and the error is reported).
        for key_node, value_node in reversed(node.value):
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == part:
                return cast(yaml.Node, key_node if want_key else value_node)
    if isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
        return cast(yaml.Node, node.value[part])
    return None


def _parse(
    path: Path, schema_name: str, errors: list[ConfigError], trusted: frozenset[str] = VALIDATED
) -> _Document | None:
    text = _read_text(path, errors)
    if text is None:
        return None
    recorded = validation_digest(schema_name, text) in trusted
    root = _compose(path, text, errors, recorded=recorded)
    if root is None:
        return None
    too_big = _too_big(root)
    if too_big is not None:
        errors.append(_node_error(path, root, too_big))
        return None
    reader = _NodeReader(path, errors)
    doc = _Document(path, root, reader.read(root), reader.broken)
    if recorded:
        return doc  # this very text passed this very schema (shipped_data.VALIDATED)
    for schema_error in _validator(schema_name).iter_errors(doc.data):
        where = tuple(schema_error.absolute_path)
        if not doc.is_broken(where):
            errors.extend(doc.error(node, message) for node, message in _explain(doc, schema_error))
    return doc


# Rule files are small and shallow. Aliases can make a tiny file expand to billions of
# values ("billion laughs"), and deep nesting exhausts the stack: refuse both up front.
# Only what aliases add is counted: a long file of plain features is no bomb (its size
# is bounded by the read cap).
MAX_VALUES = 100_000
MAX_DEPTH = 64


def _too_big(root: yaml.Node) -> str | None:
    """Size and height of the data as it would expand (aliases repeated), computed once
    per distinct node, iteratively: linear in the file however the aliases multiply. A
    recursive alias counts nothing here; the reader reports it."""
    expanded: dict[int, int] = {}  # node -> values below it once aliases are expanded
    height: dict[int, int] = {}
    on_path = {id(root)}
    stack = [(root, iter(_children(root)))]
    while stack:
        if len(stack) > MAX_DEPTH:
            return _TOO_DEEP
        node, children = stack[-1]
        child = next(children, None)
        if child is not None:
            if id(child) not in expanded and id(child) not in on_path:
                on_path.add(id(child))
                stack.append((child, iter(_children(child))))
            continue
        stack.pop()
        on_path.discard(id(node))
        below = _children(node)
        expanded[id(node)] = sum(1 + expanded.get(id(c), 0) for c in below)
        height[id(node)] = 1 + max((height.get(id(c), 0) for c in below), default=0)
        if height[id(node)] > MAX_DEPTH:
            return _TOO_DEEP
    added = expanded[id(root)] - (len(expanded) - 1)  # values beyond the distinct nodes
    if added > MAX_VALUES:
        return f"YAML aliases expand to more than {MAX_VALUES:,} values"
    return None


_TOO_DEEP = f"nested deeper than {MAX_DEPTH} levels: rule files are plain, shallow data"


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _node_error(path: Path, node: yaml.Node, message: str) -> ConfigError:
    mark = node.start_mark
    return _error(path, mark.line + 1, mark.column + 1, message)


def _read_text(path: Path, errors: list[ConfigError]) -> str | None:
    try:
        # Regular files only, capped: a FIFO or /dev/zero as a rule file must not hang.
        raw = read_regular(path, CONFIG_BYTES)
    except OSError as exc:
        errors.append(_error(path, 1, 1, f"cannot read file: {exc.strerror or exc}"))
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        message = f"not valid UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start}"
        errors.append(_error(path, 1, 1, message))
        return None
    return text.removeprefix("\ufeff")  # a byte-order mark is allowed, not content


# libyaml's parser, where PyYAML was built with it: a tenth of the pure-Python parser's
# time (23 ms -> 2 ms for the shipped rules, a twelfth of a cold check). It is used only
# for a text recorded as valid (shipped_data.VALIDATED: PyYAML composed it and the schema
# passed it), where it composes the same nodes, marks included (tests/test_yaml_compose.py).
# Any other text is PyYAML's to judge: libyaml accepts some texts PyYAML refuses.
_FAST_LOADER = getattr(yaml, "CSafeLoader", None)


def compose_yaml(text: str, *, recorded: bool = False) -> yaml.Node | None:
    """`yaml.compose(text, Loader=yaml.SafeLoader)`; by libyaml when `recorded` (the
    text's validation digest is in shipped_data.VALIDATED)."""
    if recorded and _FAST_LOADER is not None:
        try:
            return yaml.compose(text, Loader=_FAST_LOADER)
        except (yaml.YAMLError, RecursionError, ValueError, TypeError):
            pass  # cannot be, for a recorded text: PyYAML says what it makes of it
    return yaml.compose(text, Loader=yaml.SafeLoader)


def _compose(
    path: Path, text: str, errors: list[ConfigError], *, recorded: bool = False
) -> yaml.Node | None:
    try:
        root = compose_yaml(text, recorded=recorded)
    except RecursionError:  # PyYAML's composer recurses once per nesting level
        errors.append(_error(path, 1, 1, "invalid YAML: nested too deeply"))
        return None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        # e.g. "while scanning a simple key, could not find expected ':'"
        problem = ", ".join(part for part in (exc.context, exc.problem) if part) or "syntax error"
        errors.append(_error(path, line, column, f"invalid YAML: {problem}"))
        return None
    except yaml.reader.ReaderError as exc:
        line, column = _line_column(text, exc.position)
        character = exc.character if isinstance(exc.character, int) else ord(exc.character)
        message = f"invalid YAML: unacceptable character #x{character:04x}: {exc.reason}"
        errors.append(_error(path, line, column, message))
        return None
    if root is None or _is_empty_document(root):
        errors.append(_error(path, 1, 1, "empty rule file"))
        return None
    return root


def _is_empty_document(root: yaml.Node) -> bool:
    # A lone `---` composes to an empty plain scalar.
    return isinstance(root, yaml.ScalarNode) and root.tag == _YAML_TAG + "null" and not root.value


def _line_column(text: str, offset: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


class _NodeReader:
    """Builds plain data (dict, list, str, int, float, bool, None) from composed nodes."""

    def __init__(self, path: Path, errors: list[ConfigError]) -> None:
        self.path = path
        self.errors = errors
        self.broken: set[int] = set()
        self._constructor = yaml.constructor.SafeConstructor()
        # By node id: an alias is the same node, read once (no "billion laughs" blow-up).
        self._done: dict[int, object] = {}
        self._open: set[int] = set()

    def read(self, node: yaml.Node) -> object:
        if id(node) in self._done:
            return self._done[id(node)]
        if id(node) in self._open:
            self._refuse(node, "recursive YAML alias")
            return None
        self._open.add(id(node))
        value = self._read_new(node)
        self._open.discard(id(node))
        self._done[id(node)] = value
        return value

    def _read_new(self, node: yaml.Node) -> object:
        if isinstance(node, yaml.MappingNode) and node.tag == _MAPPING_TAG:
            return self._mapping(node)
        if isinstance(node, yaml.SequenceNode) and node.tag == _SEQUENCE_TAG:
            return [self.read(item) for item in node.value]
        if isinstance(node, yaml.ScalarNode) and node.tag in _SCALAR_TAGS:
            return self._scalar(node)
        self._refuse(node, _unsupported_tag(node.tag))
        return None

    def _scalar(self, node: yaml.ScalarNode) -> object:
        if node.tag in _TEXT_TAGS:
            return node.value  # dates stay text: every string field here is a name or prose
        try:
            return self._constructor.construct_object(node)
        except (ValueError, KeyError, yaml.YAMLError):
            self._refuse(node, f"invalid {_short_tag(node.tag)} value '{node.value}'")
            return None

    def _mapping(self, node: yaml.MappingNode) -> Entry:
        result: Entry = {}
        first_keys: dict[str, yaml.Node] = {}
        for key_node, value_node in node.value:
            key = self._key(key_node)
            if key is None:
                continue
            if key in first_keys:
                first_line = first_keys[key].start_mark.line + 1
                self._report(key_node, f"duplicate key '{key}' (first at line {first_line})")
            first_keys.setdefault(key, key_node)
            result[key] = self.read(value_node)
        return result

    def _key(self, node: yaml.Node) -> str | None:
        if node.tag == _MERGE_TAG:
            self._refuse(
                node, "merge keys ('<<') are not supported in rule files; write the keys out"
            )
        elif not isinstance(node, yaml.ScalarNode):
            self._refuse(node, "mapping keys must be plain strings")
        elif node.tag not in _SCALAR_TAGS:
            self._refuse(node, _unsupported_tag(node.tag))
        else:
            return cast(str, node.value)
        return None

    def _refuse(self, node: yaml.Node, message: str) -> None:
        self.broken.add(id(node))
        self._report(node, message)

    def _report(self, node: yaml.Node, message: str) -> None:
        mark = node.start_mark
        self.errors.append(_error(self.path, mark.line + 1, mark.column + 1, message))


def _short_tag(tag: str) -> str:
    return "!!" + tag.removeprefix(_YAML_TAG) if tag.startswith(_YAML_TAG) else tag


def _unsupported_tag(tag: str) -> str:
    return f"unsupported YAML tag '{_short_tag(tag)}': rule files hold plain data only"


# --- schema errors as one-line messages ---------------------------------------------------

_TYPE_NAMES = {
    "object": "mapping",
    "array": "list",
    "string": "string",
    "integer": "integer",
    "number": "number",
    "boolean": "boolean",
    "null": "empty value",
}


def _explain(doc: _Document, error: ValidationError) -> list[tuple[yaml.Node, str]]:
    path = tuple(error.absolute_path)
    instance = error.instance
    if error.validator == "additionalProperties" and isinstance(instance, dict):
        known = list(error.schema.get("properties", {})) if isinstance(error.schema, dict) else []
        unknown = [key for key in instance if key not in known]
        return [
            (doc.key_node((*path, key)), f"unknown key '{key}'{_did_you_mean(key, known)}")
            for key in unknown
        ]
    if error.validator == "required" and isinstance(instance, dict):
        names = cast(list[str], error.validator_value)
        label = _label(error)
        return [
            (doc.node(path), f"{label} is missing required key '{name}'")
            for name in names
            if name not in instance
        ]
    if error.validator == "uniqueItems" and isinstance(instance, list):
        index = _first_repeat(instance)
        return [
            (doc.node((*path, index)), f"duplicate {_show(instance[index])} in {_label(error)}")
        ]
    return [(doc.node(path), _message(error, _label(error)))]


def _message(error: ValidationError, label: str) -> str:
    expected, instance = error.validator_value, error.instance
    kind = error.validator
    if kind == "type":
        wanted = " or ".join(_a(_TYPE_NAMES.get(str(t), str(t))) for t in _as_list(expected))
        where = "at the top level" if not error.absolute_path else f"for {label}"
        return f"expected {wanted} {where}, got {_a(_type_of(instance))}"
    if kind == "pattern" and expected == NON_BLANK_PATTERN:
        return f"empty {label}"
    if kind == "pattern":
        hint = PATTERN_HINTS.get(str(expected), f"a match for {expected}")
        return f"invalid value {_show(instance)} for {label}: expected {hint}"
    if kind == "enum":
        choices = ", ".join(_show(choice) for choice in _as_list(expected))
        names = [str(choice) for choice in _as_list(expected)]
        suggestion = _did_you_mean(instance, names) if isinstance(instance, str) else ""
        return f"invalid value {_show(instance)} for {label}: expected one of {choices}{suggestion}"
    return _size_message(error, label) or f"invalid value for {label}: {error.message}"


def _size_message(error: ValidationError, label: str) -> str | None:
    expected, instance, kind = error.validator_value, error.instance, error.validator
    schema = error.schema if isinstance(error.schema, dict) else {}
    size = len(instance) if isinstance(instance, (list, dict)) else 0
    if kind in ("minItems", "maxItems") and schema.get("minItems") == schema.get("maxItems"):
        return f"expected exactly {expected} items in {label}, got {size}"
    if kind == "minProperties" and not error.absolute_path:
        keys = ", ".join(f"'{key}'" for key in schema.get("properties", {}))
        return f"nothing defined: expected at least one of {keys}"
    if kind in ("minItems", "minProperties") and expected == 1:
        return f"empty {label}: expected at least one item"
    if kind == "minItems":
        return f"expected at least {expected} items in {label}, got {size}"
    if kind == "maxItems":
        return f"expected at most {expected} items in {label}, got {size}"
    if kind == "minimum":
        return f"expected at least {expected} for {label}, got {instance}"
    return None


def _label(error: ValidationError) -> str:
    """How a message names the offending value: "'require'", "item 2 of 'flags'", "feature"."""
    path = tuple(error.absolute_path)
    if not path:
        return "the top level"
    title = error.schema.get("title") if isinstance(error.schema, dict) else None
    last = path[-1]
    if isinstance(last, str):
        return f"{title} for '{last}'" if title else f"'{last}'"
    if title:
        return str(title)
    owner = next((part for part in reversed(path) if isinstance(part, str)), "list")
    return f"item {last + 1} of '{owner}'"


def _first_repeat(items: list[object]) -> int:
    for index, item in enumerate(items):
        if item in items[:index]:
            return index
    return 0


def _as_list(value: object) -> list[object]:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _type_of(value: object) -> str:
    if isinstance(value, bool):  # before int: bool is an int in Python
        return "boolean"
    for python_type, name in ((dict, "mapping"), (list, "list"), (str, "string"), (int, "integer")):
        if isinstance(value, python_type):
            return name
    return "number" if isinstance(value, float) else "empty value"


def _a(noun: str) -> str:
    return f"an {noun}" if noun[0] in "aeiou" else f"a {noun}"


def _show(value: object) -> str:
    text = f"'{value}'" if isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    # Not difflib.get_close_matches: on a tie it prefers the name sorting last ('sm12' ->
    # 'sm121'); the first of equally close names in registry order reads better ('sm120').
    best, best_ratio = None, 0.6
    for choice in choices:
        ratio = difflib.SequenceMatcher(None, word.lower(), choice.lower()).ratio()
        if ratio > best_ratio or (best is None and ratio == best_ratio):
            best, best_ratio = choice, ratio
    return f"; did you mean '{best}'?" if best is not None else ""


# --- cross-file checks and typed results -------------------------------------------------


def _entries(data: object, key: str) -> Iterator[tuple[int, Entry]]:
    items = data.get(key) if isinstance(data, dict) else None
    if isinstance(items, list):
        for index, item in enumerate(items):
            if isinstance(item, dict):
                yield index, item


class _Loader:
    """Accumulates generations, feature ids and vocabulary names across files."""

    def __init__(self, errors: list[ConfigError], trusted: frozenset[str] = VALIDATED) -> None:
        self.errors = errors
        self.trusted = trusted
        self._generations: list[Entry] = []
        self._generation_sites: dict[str, SourceLocation] = {}
        self._feature_sites: dict[str, SourceLocation] = {}
        self._vocabulary_sites: dict[str, SourceLocation] = {}

    def add_registry(self, path: Path) -> None:
        doc = _parse(path, "registry", self.errors, self.trusted)
        if doc is not None:
            self.add_generations(doc)

    def add_generations(self, doc: _Document) -> None:
        for index, entry in _entries(doc.data, "generations"):
            name = entry.get("name")
            if not isinstance(name, str):
                continue
            # Even a malformed generation's name is known, so features naming it do not cascade.
            where: NodePath = ("generations", index, "name")
            if self._claim(doc, where, f"generation '{name}'", self._generation_sites):
                self._generations.append(entry)

    def check_rules(self, doc: _Document) -> None:
        for index, feature in _entries(doc.data, "features"):
            self._check_feature(doc, ("features", index), feature)
        for index, entry in _entries(doc.data, "vocabulary"):
            where: NodePath = ("vocabulary", index)
            if isinstance(entry.get("name"), str):
                what = f"vocabulary name '{entry['name']}'"
                self._claim(doc, (*where, "name"), what, self._vocabulary_sites)
            self._check_generation_list(doc, (*where, "admits"), entry.get("admits"))

    def _claim(
        self, doc: _Document, path: NodePath, what: str, sites: dict[str, SourceLocation]
    ) -> bool:
        """Record where the name at `path` is defined; report it if it was defined before."""
        node = doc.node(path)
        name = cast(str, node.value)
        first = sites.get(name)
        if first is not None:
            self.errors.append(doc.error(node, f"duplicate {what} (first defined at {first})"))
            return False
        sites[name] = doc.location(node)
        return True

    def _check_feature(self, doc: _Document, where: NodePath, feature: Entry) -> None:
        feature_id = feature.get("id")
        if isinstance(feature_id, str):
            self._claim(doc, (*where, "id"), f"feature id '{feature_id}'", self._feature_sites)
        if not _has_items(feature, "flags") and not _has_items(feature, "gate_functions"):
            named = f"feature '{feature_id}'" if isinstance(feature_id, str) else "feature"
            message = f"{named} needs at least one of 'flags' or 'gate_functions'"
            self.errors.append(doc.error(doc.node(where), message))
        required = feature.get("require")
        self._check_generation_list(doc, (*where, "require"), required)
        self._check_exclude(doc, (*where, "exclude"), feature.get("exclude"), required)
        for index, example in _entries(feature, "examples"):
            generation = example.get("generation")
            if isinstance(generation, str):
                self._check_generation(doc, (*where, "examples", index, "generation"), generation)

    def _check_generation_list(self, doc: _Document, where: NodePath, names: object) -> None:
        if isinstance(names, list):
            for index, name in enumerate(names):
                if isinstance(name, str):
                    self._check_generation(doc, (*where, index), name)

    def _check_exclude(
        self, doc: _Document, where: NodePath, exclude: object, required: object
    ) -> None:
        if not isinstance(exclude, dict):
            return
        for name in exclude:
            key_node = doc.key_node((*where, name))
            if not self._check_generation(doc, (*where, name), name, node=key_node):
                continue
            if isinstance(required, list) and name in required:
                message = f"generation '{name}' is both required and excluded"
                self.errors.append(doc.error(key_node, message))

    def _check_generation(
        self, doc: _Document, where: NodePath, name: str, node: yaml.Node | None = None
    ) -> bool:
        if name in self._generation_sites:
            return True
        suggestion = _did_you_mean(name, self._generation_sites)
        message = f"unknown generation '{name}'{suggestion}"
        self.errors.append(doc.error(node or doc.node(where), message))
        return False

    def registry(self) -> Registry:
        return Registry(tuple(_generation(entry) for entry in self._generations))

    def ruleset(self, documents: list[_Document], sources: tuple[Path, ...]) -> RuleSet:
        features: list[Feature] = []
        vocabulary: list[VocabularyEntry] = []
        for doc in documents:
            for index, entry in _entries(doc.data, "features"):
                features.append(_feature(entry, doc.location(doc.node(("features", index)))))
            for index, entry in _entries(doc.data, "vocabulary"):
                where = doc.location(doc.node(("vocabulary", index)))
                vocabulary.append(_vocabulary_entry(entry, where))
        return RuleSet(self.registry(), tuple(features), tuple(vocabulary), sources)


def _has_items(entry: Entry, key: str) -> bool:
    # A wrongly typed value counts as present: its type error is reported already.
    value = entry.get(key)
    return key in entry and (not isinstance(value, list) or bool(value))


# Built only from data that passed every check, hence the casts.


def _strings(entry: Entry, key: str) -> tuple[str, ...]:
    return tuple(cast(list[str], entry.get(key, [])))


def _generation(entry: Entry) -> Generation:
    major, minor = cast(list[int], entry["capability"])
    return Generation(
        name=cast(str, entry["name"]),
        vendor=cast(str, entry["vendor"]),
        capability=(int(major), int(minor)),
        family=cast(str, entry["family"]),
        products=_strings(entry, "products"),
        min_cuda=_release(entry, "min_cuda"),
        smem_per_block_optin=_shared_memory(entry, "per_block_optin"),
        smem_per_sm=_shared_memory(entry, "per_sm"),
        hardware=frozenset(_strings(entry, "hardware")),
        formerly=_release(entry, "formerly"),
    )


def _shared_memory(entry: Entry, key: str) -> int | None:
    amounts = cast(Mapping[str, int], entry.get("shared_memory", {}))
    return int(amounts[key]) if key in amounts else None


def _release(entry: Entry, key: str) -> tuple[int, int] | None:
    if key not in entry:
        return None
    major, minor = cast(list[int], entry[key])
    return int(major), int(minor)


def _feature(entry: Entry, location: SourceLocation) -> Feature:
    return Feature(
        id=cast(str, entry["id"]),
        description=cast(str, entry["description"]),
        flags=_strings(entry, "flags"),
        gate_functions=_strings(entry, "gate_functions"),
        require=frozenset(_strings(entry, "require")),
        exclude=dict(cast(Mapping[str, str], entry.get("exclude", {}))),
        kernels=_strings(entry, "kernels"),
        location=location,
        examples=tuple(_example(example) for _, example in _entries(entry, "examples")),
    )


def _example(entry: Entry) -> FeatureExample:
    return FeatureExample(
        description=cast(str, entry["description"]),
        files=dict(cast(Mapping[str, str], entry["files"])),
        expect=cast(str, entry["expect"]),
        generation=cast("str | None", entry.get("generation")),
    )


def _vocabulary_entry(entry: Entry, location: SourceLocation) -> VocabularyEntry:
    return VocabularyEntry(
        pattern=cast(str, entry["name"]),
        admits=frozenset(_strings(entry, "admits")),
        location=location,
    )
