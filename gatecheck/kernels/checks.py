"""Kernel-aware checks: a gate must admit what its kernels are built for -- no fewer
generations (the feature is lost) and no more (it fails at first use)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from astroid import nodes

from gatecheck.config.model import Feature, Registry
from gatecheck.findings import UNBUILT_GENERATION, Finding, Position
from gatecheck.gates.model import Polarity
from gatecheck.gates.results import Analysis, GateResult, flag_assumptions
from gatecheck.kernels.locate import KNOWN_KERNEL_LIBRARIES, KernelSource, locate
from gatecheck.kernels.reach import reach_kernels
from gatecheck.kernels.support import KernelReader, KernelSupport
from gatecheck.semantics.admitted import Semantics

# Looked for without being named (site-packages / --kernel-source), for automatic reach.


class KernelCatalog:
    """Kernel libraries located once per run, each read lazily."""

    def __init__(
        self, registry: Registry, kernel_sources: Sequence[Path], roots: Sequence[Path]
    ) -> None:
        self.registry = registry
        self.kernel_sources = tuple(kernel_sources)
        self.roots = tuple(roots)
        self._readers: dict[str, KernelReader | None] = {}
        self._supports: dict[str, KernelSupport] = {}

    def _reader(self, package: str) -> KernelReader | None:
        if package not in self._readers:
            source: KernelSource | None = locate(package, self.kernel_sources, self.roots)
            self._readers[package] = None if source is None else KernelReader(source, self.registry)
        return self._readers[package]

    def available_packages(self) -> list[str]:
        """Kernel libraries that can be read: those under --kernel-source, and the usual
        ones when installed (found without importing them)."""
        names = set(KNOWN_KERNEL_LIBRARIES)
        for source in self.kernel_sources:
            names |= {p.parent.name for p in source.glob("*/__init__.py")}
            names |= {p.parent.name for p in source.glob("*/*/__init__.py")}
        return sorted(n for n in names if self._reader(n) is not None)

    def support(self, dotted: str) -> KernelSupport:
        if dotted not in self._supports:
            package = dotted.split(".")[0]
            reader = self._reader(package)
            if reader is None:
                self._supports[dotted] = KernelSupport(
                    dotted,
                    None,
                    None,
                    f"kernel library '{package}' not found (install it or pass --kernel-source)",
                )
            else:
                self._supports[dotted] = reader.support(dotted)
        return self._supports[dotted]


def feature_kernels(
    analysis: Analysis,
    feature: Feature,
    results: Sequence[GateResult],
    catalog: KernelCatalog,
) -> list[KernelSupport]:
    """The rule's kernels; for a rule that names none, the kernel library entry points
    reached from the code its gates guard (automatic reach), when a library is at hand."""
    if feature.kernels:
        return [catalog.support(k) for k in feature.kernels]
    packages = catalog.available_packages()
    if not packages or not results:
        return []
    supports = []
    for reached in reach_kernels(analysis, results, packages):
        support = catalog.support(reached.dotted)
        path = " -> ".join(reached.via) or "the guarded code"
        note = f"reached from {path}" + (
            f" ({'; '.join(reached.assumed)})" if reached.assumed else ""
        )
        supports.append(dataclasses.replace(support, evidence=(note, *support.evidence)))
    return [s for s in supports if s.generations is not None]


def built_generations(supports: Sequence[KernelSupport]) -> frozenset[str] | None:
    """What every kernel of the feature is built for; None when none can tell."""
    known = [s.generations for s in supports if s.generations is not None]
    if not known:
        return None
    built = known[0]
    for gens in known[1:]:
        built &= gens
    return built


def _describe(supports: Sequence[KernelSupport]) -> str:
    return "; ".join(
        f"{s.label} is built for {s.built_for}" for s in supports if s.generations is not None
    )


def _majors(registry: Registry, gens: frozenset[str]) -> str:
    majors = sorted({registry.get(g).major for g in gens})
    return ("major " if len(majors) == 1 else "majors ") + ", ".join(str(m) for m in majors)


def with_kernel_block(
    registry: Registry,
    finding: Finding,
    result: GateResult,
    supports: Sequence[KernelSupport],
    built: frozenset[str] | None,
) -> Finding:
    """A missing generation the kernels are not built for is not a forgotten allowlist
    entry: widening the gate would crash. Say so, and let --fix refuse."""
    if built is None:
        return finding
    blocked = result.missing - built
    if not blocked:
        notes = (*finding.notes, f"kernels support it: {_describe(supports)}")
        return dataclasses.replace(finding, notes=notes)
    package = next(
        (s.source.package for s in supports if s.source is not None), "the kernel library"
    )
    needs = _majors(registry, blocked)
    reason = (
        f"blocked by the kernel library: {_describe(supports)}; needs a version of {package} "
        f"that builds for {needs}"
    )
    message = f"{finding.message}; {reason}"
    return dataclasses.replace(finding, message=message, blocked_by_kernel=reason)


def _arch_operand(semantics: Semantics, result: GateResult) -> nodes.NodeNG:
    """The first arch-dependent conjunct: what to point at when a gate admits too much."""
    condition = result.gate.condition
    flags = flag_assumptions(result.feature, result.gate.polarity)
    operands = (
        list(condition.values)
        if isinstance(condition, nodes.BoolOp) and condition.op == "and"
        else [condition]
    )
    for operand in operands:
        if semantics.is_arch_dependent(semantics.admission(operand, flags)):
            return operand
    return condition


def unbuilt_finding(
    semantics: Semantics,
    result: GateResult,
    supports: Sequence[KernelSupport],
    built: frozenset[str],
) -> Finding | None:
    if result.gate.polarity is not Polarity.ENABLES:
        return None
    registry = semantics.registry
    vendors = {registry.get(g).vendor for g in built} or {"nvidia"}
    candidates = frozenset(g for g in result.feature_admits if registry.get(g).vendor in vendors)
    unbuilt = candidates - built
    if not unbuilt:
        return None
    gate = result.gate
    node = _arch_operand(semantics, result)
    extra = ", ".join(registry.ordered(unbuilt))
    message = (
        f"{gate.kind.value} gate of '{result.feature.id}' admits {extra} but {_describe(supports)}"
    )
    return Finding(
        rule=UNBUILT_GENERATION,
        path=gate.path,
        start=Position(int(node.lineno or 1), int(node.col_offset or 0)),
        end=Position(int(node.end_lineno or node.lineno or 1), int(node.end_col_offset or 0)),
        feature=result.feature.id,
        message=message,
        required=frozenset(result.feature.require),
        admitted=result.feature_admits,
        missing=frozenset(),
        gate_kind=gate.kind,
        polarity=gate.polarity,
        qualname=gate.qualname,
        condition=gate.condition.as_string(),
        culprit=node.as_string(),
        notes=(f"{_majors(registry, built)} only: narrow the gate or upgrade the kernel library",),
    )
