"""JSON Schemas (Draft 2020-12) for rule files and the generation registry.

The schemas check shape only. What needs more than one node (generation names that must
exist in the registry, ids unique across files, require/exclude overlap) is checked by the
loader, which also turns schema errors into one-line messages with YAML positions.
`title` names an object in messages ("feature is missing required key 'id'").
"""

from __future__ import annotations

from typing import Any

DRAFT = "https://json-schema.org/draft/2020-12/schema"

FEATURE_ID_PATTERN = r"^[a-z0-9][a-z0-9_.-]*$"
GENERATION_NAME_PATTERN = r"^[a-z][a-z0-9_.-]*$"
IDENTIFIER_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
DOTTED_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$"
NON_BLANK_PATTERN = r"\S"

# What each pattern means, for messages: "invalid value 'X' for 'id': expected <hint>".
PATTERN_HINTS = {
    FEATURE_ID_PATTERN: "lower-case letters, digits, '_', '.' or '-' (first a letter or digit)",
    GENERATION_NAME_PATTERN: "lower-case letters, digits, '_', '.' or '-' (first a letter)",
    IDENTIFIER_PATTERN: "a Python identifier",
    DOTTED_NAME_PATTERN: "a dotted Python name such as pkg.mod.func",
    NON_BLANK_PATTERN: "some non-blank text",
}

VENDORS = ("nvidia", "amd")
# Instruction-set features a generation may list under `hardware`, as comments name them
# when they explain a gate (audit/evidence.HARDWARE_WORDS spells each).
HARDWARE = (
    "tcgen05",
    "tmem",
    "umma",
    "2cta",
    "wgmma",
    "tma-multicast",
    "dsmem",
    "cvt.rs",
    "mma.sp",
)
EXPECTATIONS = ("fail", "pass")

Schema = dict[str, Any]


def _text(title: str | None = None) -> Schema:
    # The pattern alone rejects "" too; minLength would report the same value twice.
    schema: Schema = {"type": "string", "pattern": NON_BLANK_PATTERN}
    if title is not None:
        schema["title"] = title
    return schema


def _names(pattern: str | None = None, *, non_empty: bool = False) -> Schema:
    item: Schema = {"type": "string", "pattern": pattern} if pattern else {"type": "string"}
    schema: Schema = {"type": "array", "items": item, "uniqueItems": True}
    if non_empty:
        schema["minItems"] = 1
    return schema


GENERATION_SCHEMA: Schema = {
    "title": "generation",
    "type": "object",
    "properties": {
        "name": {"type": "string", "pattern": GENERATION_NAME_PATTERN},
        "vendor": {"type": "string", "enum": list(VENDORS)},
        # What torch.cuda.get_device_capability() returns: [major, minor].
        "capability": {
            "type": "array",
            "items": {"type": "integer", "minimum": 0},
            "minItems": 2,
            "maxItems": 2,
        },
        "family": _text(),
        "products": {"type": "array", "items": _text("product")},
        # The first CUDA toolkit release supporting the device: [major, minor].
        "min_cuda": {
            "type": "array",
            "items": {"type": "integer", "minimum": 0},
            "minItems": 2,
            "maxItems": 2,
        },
        # The capability the device reported under earlier toolkits: [major, minor].
        "formerly": {
            "type": "array",
            "items": {"type": "integer", "minimum": 0},
            "minItems": 2,
            "maxItems": 2,
        },
        # Bytes of shared memory: per block once opted in, and per SM.
        "shared_memory": {
            "type": "object",
            "properties": {
                "per_block_optin": {"type": "integer", "minimum": 1},
                "per_sm": {"type": "integer", "minimum": 1},
            },
            "required": ["per_block_optin", "per_sm"],
            "additionalProperties": False,
        },
        # Instruction-set features the device has (a feature no generation lists is
        # taken as missing on every one).
        "hardware": {
            "type": "array",
            "items": {"type": "string", "enum": list(HARDWARE)},
            "uniqueItems": True,
        },
    },
    "required": ["name", "vendor", "capability", "family"],
    "additionalProperties": False,
}

EXAMPLE_SCHEMA: Schema = {
    "title": "example",
    "type": "object",
    "properties": {
        "description": _text(),
        # Module path -> source text; kept as raw data, the example tests read it.
        "files": {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": {"type": "string", "title": "source text"},
        },
        "expect": {"type": "string", "enum": list(EXPECTATIONS)},
        "generation": {"type": "string"},
    },
    "required": ["description", "files", "expect"],
    "additionalProperties": False,
}

FEATURE_SCHEMA: Schema = {
    "title": "feature",
    "type": "object",
    "properties": {
        "id": {"type": "string", "pattern": FEATURE_ID_PATTERN},
        "description": _text(),
        "flags": _names(IDENTIFIER_PATTERN),
        "gate_functions": _names(DOTTED_NAME_PATTERN),
        "require": _names(non_empty=True),
        "exclude": {"type": "object", "additionalProperties": _text("exclusion reason")},
        "kernels": _names(DOTTED_NAME_PATTERN),
        "examples": {"type": "array", "items": EXAMPLE_SCHEMA},
    },
    # "at least one of flags / gate_functions" is checked by the loader, for a clearer message.
    "required": ["id", "description", "require"],
    "additionalProperties": False,
}

VOCABULARY_SCHEMA: Schema = {
    "title": "vocabulary entry",
    "type": "object",
    "properties": {
        # An fnmatch glob on the callee's dotted or bare name.
        "name": _text(),
        # May be empty: a predicate that admits no generation is still worth naming.
        "admits": _names(),
    },
    "required": ["name", "admits"],
    "additionalProperties": False,
}

RULE_FILE_SCHEMA: Schema = {
    "$schema": DRAFT,
    "title": "rule file",
    "type": "object",
    "properties": {
        "generations": {"type": "array", "items": GENERATION_SCHEMA},
        "features": {"type": "array", "items": FEATURE_SCHEMA},
        "vocabulary": {"type": "array", "items": VOCABULARY_SCHEMA},
    },
    "additionalProperties": False,
    "minProperties": 1,
}

REGISTRY_SCHEMA: Schema = {
    "$schema": DRAFT,
    "title": "generation registry",
    "type": "object",
    "properties": {
        "generations": {"type": "array", "items": GENERATION_SCHEMA, "minItems": 1},
    },
    "required": ["generations"],
    "additionalProperties": False,
}
