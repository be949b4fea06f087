"""Digests (loader.validation_digest) of rule files known to pass their schema: the
shipped registry and rules. The loader skips jsonschema for a file whose schema and text
give one of these; any other text, or any edit to the schema, is validated as always.
tests/test_validated_rules.py fails when a shipped file's digest is missing here, and
validates every recorded file with jsonschema; it prints the set to paste after an edit."""

from __future__ import annotations

VALIDATED: frozenset[str] = frozenset(
    [
        "542c53202e15d3bdfc2760807fc21d6bcd3b4e2ddc539f3f8bf2bd78c74439e8",  # rules/sglang.yaml
        "6ea51efb2f214305d3ea6bf547c43673b4d90f73653dc7c107d46900d97eb7bc",  # generations.yaml
    ]
)
