"""Loading and validating the generation registry and rule files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from gatecheck import resources
from gatecheck.config.loader import load_registry, load_ruleset
from gatecheck.config.model import ConfigError, ConfigErrors, FeatureExample
from gatecheck.config.schema import REGISTRY_SCHEMA, RULE_FILE_SCHEMA
from tests.unprivileged import python_as_nobody, world_folder

# Each case: a rule file with exactly one problem, where it is (1-based) and what is said.
BAD_RULE_FILES = [
    pytest.param(
        "features:\n  - id: demo\n    description: a: b\n",
        3,
        19,
        "invalid YAML: mapping values are not allowed here",
        id="yaml-syntax-error",
    ),
    pytest.param(
        "features:\n  - id: demo\n---\nfeatures: []\n",
        3,
        1,
        "invalid YAML: expected a single document in the stream, but found another document",
        id="several-yaml-documents",
    ),
    pytest.param(
        'vocabulary: [{name: "is_\x01", admits: []}]\n',
        1,
        25,
        "invalid YAML: unacceptable character #x0001",
        id="control-character",
    ),
    pytest.param(
        "feature:\n  - id: demo\n",
        1,
        1,
        "unknown key 'feature'; did you mean 'features'?",
        id="unknown-top-level-key",
    ),
    pytest.param(
        "features:\n"
        "  - id: demo\n"
        "    description: d\n"
        "    flags: [f]\n"
        "    require: [sm90]\n"
        "    kernel: [flashinfer.jit.gen]\n",
        6,
        5,
        "unknown key 'kernel'; did you mean 'kernels'?",
        id="unknown-feature-key",
    ),
    pytest.param(
        "features:\n"
        "  - id: demo\n"
        "    description: d\n"
        "    flags: [f]\n"
        "    require: [sm90]\n"
        "    examples:\n"
        "      - {description: e, files: {a.py: ''}, expect: pass, generaton: sm90}\n",
        7,
        59,
        "unknown key 'generaton'; did you mean 'generation'?",
        id="unknown-example-key",
    ),
    pytest.param(
        "features:\n  - id: demo\n    description: d\n    flags: [f]\n    require: sm90\n",
        5,
        14,
        "expected a list for 'require', got a string",
        id="require-as-string",
    ),
    pytest.param(
        "features:\n  - id: demo\n    description: d\n    flags: 5\n    require: [sm90]\n",
        4,
        12,
        "expected a list for 'flags', got an integer",
        id="flags-as-int",
    ),
    pytest.param(
        "features:\n"
        "  - id: demo\n"
        "    description: d\n"
        "    flags: [f]\n"
        "    require: [sm90]\n"
        "    exclude: [sm121]\n",
        6,
        14,
        "expected a mapping for 'exclude', got a list",
        id="exclude-as-list",
    ),
    pytest.param(
        "features:\n"
        "  - id: demo\n"
        "    description: d\n"
        "    flags: [f, not-an-identifier]\n"
        "    require: [sm90]\n",
        4,
        16,
        "invalid value 'not-an-identifier' for item 2 of 'flags': expected a Python identifier",
        id="flag-not-identifier",
    ),
    pytest.param(
        "features:\n"
        "  - id: demo\n"
        "    description: d\n"
        "    gate_functions: [pkg..func]\n"
        "    require: [sm90]\n",
        4,
        22,
        "invalid value 'pkg..func' for item 1 of 'gate_functions': expected a dotted Python name",
        id="gate-function-not-dotted",
    ),
    pytest.param(
        "features:\n  - id: demo\n    description: d\n    flags: [f]\n    require: [sm90, sm12]\n",
        5,
        21,
        "unknown generation 'sm12'; did you mean 'sm120'?",
        id="unknown-generation",
    ),
    pytest.param(
        "features:\n  - id: demo\n    description: d\n    flags: [f]\n    require: []\n",
        5,
        14,
        "empty 'require': expected at least one item",
        id="empty-require",
    ),
    pytest.param(
        "features:\n"
        "  - id: demo\n"
        "    description: d\n"
        "    flags: [f]\n"
        "    require: [sm90, sm100, sm90]\n",
        5,
        28,
        "duplicate 'sm90' in 'require'",
        id="duplicate-generation-in-require",
    ),
    pytest.param(
        "features:\n"
        "  - id: demo\n"
        "    description: d\n"
        "    flags: [f]\n"
        "    require: [sm90, sm120]\n"
        "    exclude: {sm120: no kernels}\n",
        6,
        15,
        "generation 'sm120' is both required and excluded",
        id="require-exclude-overlap",
    ),
    pytest.param(
        "features:\n"
        "  - id: demo\n"
        "    description: d\n"
        "    flags: [f]\n"
        "    require: [sm90]\n"
        "    exclude: {sm121: ''}\n",
        6,
        22,
        "empty exclusion reason for 'sm121'",
        id="empty-exclusion-reason",
    ),
    pytest.param(
        "features:\n"
        "  - id: demo\n"
        "    description: d\n"
        "    flags: [f]\n"
        "    require: [sm90]\n"
        "    exclude: {sm12: too new}\n",
        6,
        15,
        "unknown generation 'sm12'; did you mean 'sm120'?",
        id="unknown-excluded-generation",
    ),
    pytest.param(
        "features:\n"
        "  - id: Demo Feature\n"
        "    description: d\n"
        "    flags: [f]\n"
        "    require: [sm90]\n",
        2,
        9,
        "invalid value 'Demo Feature' for 'id': expected lower-case letters",
        id="bad-id-pattern",
    ),
    pytest.param(
        "features:\n  - description: d\n    flags: [f]\n    require: [sm90]\n",
        2,
        5,
        "feature is missing required key 'id'",
        id="missing-id",
    ),
    pytest.param(
        "features:\n  - id: demo\n    flags: [f]\n    require: [sm90]\n",
        2,
        5,
        "feature is missing required key 'description'",
        id="missing-description",
    ),
    pytest.param(
        "features:\n  - id: demo\n    description: '   '\n    flags: [f]\n    require: [sm90]\n",
        3,
        18,
        "empty 'description'",
        id="blank-description",
    ),
    pytest.param(
        "features:\n  - id: demo\n    description: d\n    flags: [f]\n",
        2,
        5,
        "feature is missing required key 'require'",
        id="missing-require",
    ),
    pytest.param(
        "features:\n  - id: demo\n    description: d\n    flags: []\n    require: [sm90]\n",
        2,
        5,
        "feature 'demo' needs at least one of 'flags' or 'gate_functions'",
        id="no-flags-no-gate-functions",
    ),
    pytest.param(
        "features:\n"
        "  - id: demo\n"
        "    description: d\n"
        "    flags: [f]\n"
        "    require: [sm90]\n"
        "    require: [sm100]\n",
        6,
        5,
        "duplicate key 'require' (first at line 5)",
        id="duplicate-key",
    ),
    pytest.param(
        "features:\n"
        "  - id: demo\n"
        "    description: d\n"
        "    flags: [f]\n"
        "    require: [sm90]\n"
        "    examples:\n"
        "      - {description: e, files: {a.py: ''}, expect: fial}\n",
        7,
        53,
        "invalid value 'fial' for 'expect': expected one of 'fail', 'pass'; did you mean 'fail'?",
        id="example-bad-expect",
    ),
    pytest.param(
        "features:\n"
        "  - id: demo\n"
        "    description: d\n"
        "    flags: [f]\n"
        "    require: [sm90]\n"
        "    examples:\n"
        "      - {description: e, files: {a.py: ''}, expect: fail, generation: sm_90}\n",
        7,
        71,
        "unknown generation 'sm_90'; did you mean 'sm90'?",
        id="example-unknown-generation",
    ),
    pytest.param(
        "",
        1,
        1,
        "empty rule file",
        id="empty-file",
    ),
    pytest.param(
        "# nothing here yet\n\n# still nothing\n",
        1,
        1,
        "empty rule file",
        id="comments-only",
    ),
    pytest.param(
        "{}\n",
        1,
        1,
        "nothing defined: expected at least one of 'generations', 'features', 'vocabulary'",
        id="empty-mapping",
    ),
    pytest.param(
        "- id: demo\n- id: other\n",
        1,
        1,
        "expected a mapping at the top level, got a list",
        id="top-level-list",
    ),
    pytest.param(
        "features:\n  - !!python/object/apply:os.system ['echo pwned']\n",
        2,
        5,
        "unsupported YAML tag '!!python/object/apply:os.system'",
        id="python-tag",
    ),
    pytest.param(
        "features:\n  - !include other.yaml\n",
        2,
        5,
        "unsupported YAML tag '!include'",
        id="custom-tag",
    ),
    pytest.param(
        "features:\n"
        "  - id: demo\n"
        "    description: d\n"
        "    flags: [f]\n"
        "    <<: {kernels: [pkg.kernel]}\n"
        "    require: [sm90]\n",
        5,
        5,
        "merge keys ('<<') are not supported",
        id="merge-key",
    ),
    pytest.param(
        b"features:\n  - id: demo\n    description: caf\xe9\n",
        1,
        1,
        "not valid UTF-8: byte 0xe9 at offset 43",
        id="not-utf8",
    ),
    pytest.param(
        "generations:\n  - {name: sm90, vendor: nvidia, capability: [9, 0], family: Hopper}\n",
        2,
        12,
        "duplicate generation 'sm90' (first defined at ",
        id="generation-name-clash",
    ),
    pytest.param(
        "generations:\n  - {name: sm130, vendor: nvidia, capability: [13], family: Rubin}\n",
        2,
        47,
        "expected exactly 2 items in 'capability', got 1",
        id="generation-capability-length",
    ),
    pytest.param(
        "generations:\n  - {name: xe2, vendor: intel, capability: [20, 1], family: Xe2}\n",
        2,
        25,
        "invalid value 'intel' for 'vendor': expected one of 'nvidia', 'amd'",
        id="generation-unknown-vendor",
    ),
    pytest.param(
        "generations:\n"
        "  - {name: sm130, vendor: nvidia, capability: [13, 0], family: Rubin, product: [R100]}\n",
        2,
        71,
        "unknown key 'product'; did you mean 'products'?",
        id="generation-unknown-key",
    ),
    pytest.param(
        "vocabulary:\n  - {name: 'is_sm120*'}\n",
        2,
        5,
        "vocabulary entry is missing required key 'admits'",
        id="vocabulary-without-admits",
    ),
    pytest.param(
        "vocabulary:\n  - {name: 'is_sm120*', admits: [sm120, sm122]}\n",
        2,
        41,
        "unknown generation 'sm122'; did you mean 'sm120'?",
        id="vocabulary-unknown-generation",
    ),
    pytest.param(
        "vocabulary:\n  - {name: '', admits: []}\n",
        2,
        12,
        "empty 'name'",
        id="vocabulary-empty-name",
    ),
]


def _write(path: Path, content: str | bytes) -> Path:
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def _load_errors(paths: list[Path]) -> list[ConfigError]:
    with pytest.raises(ConfigErrors) as raised:
        load_ruleset(paths)
    return raised.value.errors


@pytest.mark.parametrize(("content", "line", "column", "message"), BAD_RULE_FILES)
def test_bad_rule_file(
    tmp_path: Path, content: str | bytes, line: int, column: int, message: str
) -> None:
    path = _write(tmp_path / "rules.yaml", content)

    errors = _load_errors([path])

    assert [(e.line, e.column) for e in errors] == [(line, column)], [str(e) for e in errors]
    text = str(errors[0])
    assert text.startswith(f"{path}:{line}:{column}: ")
    assert message in text
    assert "\n" not in text
    assert errors[0].message[0].islower()


def test_tags_are_never_constructed(tmp_path: Path) -> None:
    marker = tmp_path / "constructed"
    rules = _write(
        tmp_path / "rules.yaml",
        f"features:\n  - !!python/object/apply:os.system ['touch {marker}']\n",
    )

    _load_errors([rules])

    assert not marker.exists()


def test_every_error_in_a_file_is_reported_in_order(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "rules.yaml",
        "features:\n"
        "  - id: demo\n"
        "    description: d\n"
        "    flags: [f]\n"
        "    requires: [sm90]\n"
        "    require: [sm9, sm100]\n"
        "  - id: Other\n"
        "    description: d\n"
        "    require: sm90\n",
    )

    errors = _load_errors([path])

    assert [(e.line, e.column) for e in errors] == [(5, 5), (6, 15), (7, 5), (7, 9), (9, 14)]
    assert "unknown key 'requires'; did you mean 'require'?" in errors[0].message
    assert "unknown generation 'sm9'" in errors[1].message
    assert "needs at least one of 'flags' or 'gate_functions'" in errors[2].message
    assert "invalid value 'Other' for 'id'" in errors[3].message
    assert "expected a list for 'require', got a string" in errors[4].message


def test_errors_from_all_files_are_collected_and_sorted(tmp_path: Path) -> None:
    second = _write(tmp_path / "b.yaml", "vocabulary:\n  - {name: x}\n")
    first = _write(tmp_path / "a.yaml", "- not a mapping\n")

    errors = _load_errors([second, first])

    assert [e.path for e in errors] == [first, second]
    assert str(ConfigErrors(errors)) == "\n".join(str(e) for e in errors)


def test_duplicate_feature_id_across_files(tmp_path: Path) -> None:
    feature = "features:\n  - {id: demo, description: d, flags: [f], require: [sm90]}\n"
    first = _write(tmp_path / "a.yaml", feature)
    second = _write(tmp_path / "b.yaml", "# the same again\n" + feature)

    errors = _load_errors([tmp_path])

    assert [str(e) for e in errors] == [
        f"{second}:3:10: duplicate feature id 'demo' (first defined at {first}:2:10)"
    ]


def test_duplicate_vocabulary_name(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "rules.yaml",
        "vocabulary:\n  - {name: 'is_sm9*', admits: [sm90]}\n  - {name: 'is_sm9*', admits: []}\n",
    )

    errors = _load_errors([path])

    assert [str(e) for e in errors] == [
        f"{path}:3:12: duplicate vocabulary name 'is_sm9*' (first defined at {path}:2:12)"
    ]


def test_non_yaml_file_in_rules_directory(tmp_path: Path) -> None:
    _write(tmp_path / "rules.yaml", "vocabulary: []\n")
    notes = _write(tmp_path / "notes.txt", "hello\n")
    _write(tmp_path / "README.md", "# rules\n")
    _write(tmp_path / "LICENSE", "Apache-2.0\n")
    _write(tmp_path / ".hidden.json", "{}\n")
    (tmp_path / "subdir").mkdir()

    errors = _load_errors([tmp_path])

    assert [str(e) for e in errors] == [f"{notes}:1:1: not a rule file: expected .yaml or .yml"]


def test_missing_explicit_path(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"

    errors = _load_errors([missing])

    assert [str(e) for e in errors] == [f"{missing}:1:1: no such file or directory"]


def test_directory_without_rule_files(tmp_path: Path) -> None:
    _write(tmp_path / "README.md", "# rules\n")

    errors = _load_errors([tmp_path])

    assert [str(e) for e in errors] == [
        f"{tmp_path}:1:1: no rule files (*.yaml, *.yml) in directory"
    ]


def test_unreadable_file() -> None:
    base = world_folder()
    path = _write(base / "rules.yaml", "vocabulary: []\n")
    path.chmod(0o000)  # root reads it anyway: loaded as an unprivileged user

    code = (
        "from gatecheck.config.loader import load_ruleset\n"
        "from gatecheck.config.model import ConfigErrors\n"
        "try:\n"
        "    load_ruleset([sys.argv[1]])\n"
        "except ConfigErrors as errors:\n"
        "    print(errors)\n"
    )
    result = python_as_nobody(code, base, str(path))

    assert result.stdout.strip() == f"{path}:1:1: cannot read file: Permission denied"


def test_shipped_rules_load() -> None:
    ruleset = load_ruleset()

    feature = next(f for f in ruleset.features if f.id == "flashinfer-allreduce-fusion")
    assert feature.require == {"sm90", "sm100", "sm120"}
    assert feature.flags == (
        "enable_flashinfer_allreduce_fusion",
        "flashinfer_allreduce_fusion_backend",
    )
    assert feature.exclude == {}
    assert feature.location is not None
    assert feature.location.path.name == "sglang.yaml"
    assert sorted(example.expect for example in feature.examples) == ["fail", "fail", "pass"]
    assert all(isinstance(example, FeatureExample) for example in feature.examples)
    assert ruleset.sources[0] == resources.registry_path()


@pytest.mark.parametrize("given", [resources.shipped_rules_dir(), resources.registry_path()])
def test_shipped_registry_given_explicitly(given: Path) -> None:
    # The registry is loaded once, as the registry, not again as a rule file.
    ruleset = load_ruleset([given])

    assert ruleset.registry.names == load_registry().names


def test_same_file_twice_is_loaded_once(tmp_path: Path) -> None:
    path = _write(tmp_path / "rules.yaml", "vocabulary: [{name: 'is_hopper*', admits: [sm90]}]\n")

    ruleset = load_ruleset([path, tmp_path])

    assert [entry.pattern for entry in ruleset.vocabulary] == ["is_hopper*"]


def test_user_generation_can_be_required(tmp_path: Path) -> None:
    # The feature file sorts before the generation file: generations are added first anyway.
    _write(
        tmp_path / "a_features.yaml",
        "features:\n"
        "  - id: rubin-only\n"
        "    description: needs Rubin\n"
        "    gate_functions: [pkg.mod.use_rubin_path]\n"
        "    require: [sm130]\n"
        "    exclude: {sm90: no fp4 tensor cores}\n"
        "vocabulary:\n"
        "  - {name: 'is_rubin*', admits: [sm130]}\n"
        "  - {name: 'never', admits: []}\n",
    )
    _write(
        tmp_path / "b_generations.yml",
        "generations:\n"
        "  - {name: sm130, vendor: nvidia, capability: [13, 0], family: Rubin, products: [R100]}\n",
    )

    ruleset = load_ruleset([tmp_path])

    assert ruleset.registry.get("sm130").capability == (13, 0)
    assert ruleset.registry.get("sm130").products == ("R100",)
    assert ruleset.registry.names[-1] == "sm130"
    (feature,) = ruleset.features
    assert feature.require == {"sm130"}
    assert feature.exclude == {"sm90": "no fp4 tensor cores"}
    assert feature.flags == ()
    assert feature.location is not None
    assert (feature.location.line, feature.location.column) == (2, 5)
    assert [(v.pattern, v.admits) for v in ruleset.vocabulary] == [
        ("is_rubin*", {"sm130"}),
        ("never", frozenset()),
    ]
    assert len(ruleset.sources) == 3


def test_load_registry_default() -> None:
    registry = load_registry()

    assert registry.get("sm120").capability == (12, 0)
    assert registry.get("gfx942").vendor == "amd"
    assert registry.names[0] == "sm70"
    # Thor was sm_101 before CUDA 13.0; no other generation was renamed.
    assert registry.get("sm110").formerly == (10, 1)
    assert [g.name for g in registry.generations if g.formerly is not None] == ["sm110"]


def test_a_former_capability_is_two_numbers(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "generations.yaml",
        "generations:\n"
        "  - {name: sm110, vendor: nvidia, capability: [11, 0], family: Blackwell, formerly: [10]}\n",
    )
    with pytest.raises(ConfigErrors) as raised:
        load_registry(path)
    assert "formerly" in raised.value.errors[0].message


def test_load_registry_reports_errors(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "generations.yaml",
        "generations:\n"
        "  - {name: sm90, vendor: nvidia, capability: [9, 0], family: Hopper}\n"
        "  - {name: sm90, vendor: nvidia, capability: [9, 0], family: Hopper}\n"
        "features: []\n",
    )

    with pytest.raises(ConfigErrors) as raised:
        load_registry(path)

    assert [(e.line, e.column) for e in raised.value.errors] == [(3, 12), (4, 1)]
    assert "duplicate generation 'sm90'" in raised.value.errors[0].message
    assert "unknown key 'features'" in raised.value.errors[1].message


@pytest.mark.parametrize("schema", [RULE_FILE_SCHEMA, REGISTRY_SCHEMA])
def test_schemas_are_valid_draft_2020_12(schema: dict[str, object]) -> None:
    Draft202012Validator.check_schema(schema)


# --- special files and big plain files (issue #15) -------------------------------------------


def _gatecheck(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """In a subprocess: a read that blocks would hang the test run instead of failing it."""
    return subprocess.run(
        [sys.executable, "-m", "gatecheck", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("command", [["rules", "validate"], ["check", ".", "--rules"]])
def test_a_fifo_or_a_device_as_rules_is_refused_not_read(
    tmp_path: Path, command: list[str]
) -> None:
    fifo = tmp_path / "rules.yaml"
    os.mkfifo(fifo)

    for given, why in ((fifo, "a FIFO"), (Path("/dev/zero"), "a device")):
        result = _gatecheck([*command, str(given)], tmp_path)

        assert result.returncode == 2, result.stderr
        assert f"{given}:1:1: cannot read file: {why}, not a regular file" in result.stderr


def test_a_long_file_of_plain_features_is_not_an_alias_bomb(tmp_path: Path) -> None:
    """9,500 features (about 750 KB, no alias) were refused as "aliases expand to more
    than 100,000 values": only what aliases add counts."""
    features = "".join(
        f"  - id: feature-{n}\n"
        f"    description: plain feature number {n}\n"
        f"    flags: [flag_{n}, other_flag_{n}]\n"
        "    require: [sm90, sm100, sm120]\n"
        for n in range(9_500)
    )
    path = _write(tmp_path / "rules.yaml", "features:\n" + features)

    ruleset = load_ruleset([path])

    assert len(ruleset.features) == 9_500


def test_an_alias_bomb_is_still_refused(tmp_path: Path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]" for n in range(1, 6)]
    path = _write(tmp_path / "rules.yaml", "\n".join(lines) + "\n")

    assert [e.message for e in _load_errors([path])] == [
        "YAML aliases expand to more than 100,000 values"
    ]
