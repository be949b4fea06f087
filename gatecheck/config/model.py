"""Typed configuration objects: the generation registry and feature rules."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class SourceLocation:
    """Where a config item was declared (1-based line and column, for messages)."""

    path: Path
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Generation:
    """A GPU generation of the registry."""

    name: str
    vendor: str
    # What torch.cuda.get_device_capability() returns on such a device.
    capability: tuple[int, int]
    family: str
    products: tuple[str, ...] = ()
    # The first CUDA toolkit release that supports the device (None: not an NVIDIA
    # device, or not known): a torch that runs on it was built for at least this one.
    min_cuda: tuple[int, int] | None = None
    # Bytes of shared memory a block may opt in to, and an SM holds (None: not known).
    smem_per_block_optin: int | None = None
    smem_per_sm: int | None = None
    # Instruction-set features the device has, of those a comment may name as a kernel's
    # requirement (schema.HARDWARE: `tcgen05`, `tmem`, `wgmma`...). A feature no generation
    # lists is taken as missing everywhere.
    hardware: frozenset[str] = frozenset()
    # The capability it reported under earlier toolkits (Thor: (10, 1) before CUDA 13.0,
    # (11, 0) since): a test written then for that major took it in.
    formerly: tuple[int, int] | None = None

    @property
    def major(self) -> int:
        return self.capability[0]

    @property
    def minor(self) -> int:
        return self.capability[1]

    @property
    def sm_version(self) -> int:
        return self.capability[0] * 10 + self.capability[1]

    def same_line(self, other: Generation) -> bool:
        """`other` is of this generation's own line: the same vendor, major and family
        (sm120 and sm121; not sm86 and sm89, Ampere and Ada; not gfx942 and gfx950, whose
        major 9 is shared by AMD's CDNA2, CDNA3 and CDNA4 alike). A test admitting only
        its line is this generation's own test."""
        return (
            self.vendor == other.vendor
            and self.major == other.major
            and self.family.lower() == other.family.lower()
        )


@dataclass(frozen=True)
class Registry:
    """The known generations, in the registry's order."""

    generations: tuple[Generation, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_name", {g.name: g for g in self.generations})

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(g.name for g in self.generations)

    def get(self, name: str) -> Generation:
        by_name: dict[str, Generation] = self._by_name  # type: ignore[attr-defined]
        return by_name[name]

    def __contains__(self, name: object) -> bool:
        by_name: dict[str, Generation] = self._by_name  # type: ignore[attr-defined]
        return name in by_name

    def all_names(self) -> frozenset[str]:
        return frozenset(self.names)

    def vendor_names(self, vendor: str) -> frozenset[str]:
        return frozenset(g.name for g in self.generations if g.vendor == vendor)

    def ordered(self, names: Iterable[str]) -> list[str]:
        wanted = set(names)
        return [g.name for g in self.generations if g.name in wanted]


@dataclass(frozen=True)
class FeatureExample:
    """A small code example a rule carries, with the verdict gatecheck must reach on it."""

    description: str
    # Module path (e.g. `pkg/mod.py`) -> source text.
    files: Mapping[str, str]
    expect: str  # "fail" or "pass"
    # The generation the example is checked against, when not the feature's `require`.
    generation: str | None = None


@dataclass(frozen=True)
class Feature:
    """A feature whose gates must admit the `require`d generations."""

    id: str
    description: str
    # Feature flags (attribute / field names) whose switching-on or reading is a gate.
    flags: tuple[str, ...]
    # Explicit gate functions, dotted (`pkg.mod.func` or `pkg.mod.Class.method`).
    gate_functions: tuple[str, ...]
    require: frozenset[str]
    # Deliberate exclusions: generation -> reason. Never flagged, never "fixed".
    exclude: Mapping[str, str] = field(default_factory=dict)
    # Kernel entry points (dotted) the feature reaches, for kernel-aware checks.
    kernels: tuple[str, ...] = ()
    # CLI options that set the flag, if the rule names them (else discovered).
    location: SourceLocation | None = None
    examples: tuple[FeatureExample, ...] = ()


@dataclass(frozen=True)
class VocabularyEntry:
    """Project-specific predicate vocabulary: a name pattern and what it admits.

    Used only where no body can be read (compiled or third-party code).
    `pattern` is an fnmatch-style glob on the callee's dotted or bare name.
    """

    pattern: str
    admits: frozenset[str]
    location: SourceLocation | None = None


@dataclass(frozen=True)
class RuleSet:
    """The registry, the features, the vocabulary, and the files they came from."""

    registry: Registry
    features: tuple[Feature, ...] = ()
    vocabulary: tuple[VocabularyEntry, ...] = ()
    sources: tuple[Path, ...] = ()


@dataclass(frozen=True)
class ConfigError:
    """One problem in a config file; str() is the one-line `file:line:col: message`."""

    path: Path
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.message}"


class ConfigErrors(Exception):
    """All problems found while loading config, reported together."""

    def __init__(self, errors: list[ConfigError]) -> None:
        super().__init__("\n".join(str(e) for e in errors))
        self.errors = errors
