"""`explain` views: the activation path as a rich tree or JSON, and the verdict sentence
("why is feature X off on my GPU")."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text
from rich.tree import Tree

from gatecheck.config.model import Registry
from gatecheck.findings import Hop
from gatecheck.kernels.support import KernelSupport
from gatecheck.reporting.columns import SourceLines
from gatecheck.reporting.paths import display_path
from gatecheck.tracing.paths import ActivationPath, PathNode


def _where(nodes: Sequence[PathNode], base: Path | None, generation: str) -> str:
    return ", ".join(
        f"{display_path(n.where(generation).path, base)}:{n.where(generation).line}" for n in nodes
    )


def failing(nodes: Sequence[PathNode], generation: str) -> list[PathNode]:
    return [n for n in nodes if generation not in n.hop.admitted]


def verdict(path: ActivationPath, generation: str, base: Path | None = None) -> str:
    feature = path.feature
    if generation in feature.exclude:
        return (
            f"on {generation}: deliberately excluded by the rules ({feature.exclude[generation]})"
        )
    option = path.option_names[0] if path.options else None
    parts: list[str] = []
    if path.auto_gates:
        blocked = failing(path.auto_gates, generation)
        if blocked:
            parts.append(f"never auto-enabled ({_where(blocked, base, generation)})")
        else:
            where = _where(path.auto_gates, base, generation)
            parts.append(f"auto-enabled when its other conditions hold ({where})")
    else:
        parts.append("never switched on automatically (no auto-enable gate found)")
    if path.runtime_gates:
        blocked = failing(path.runtime_gates, generation)
        forced = f" even when forced with {option}" if option else " even when enabled"
        if blocked:
            parts.append(f"cannot run{forced} ({_where(blocked, base, generation)})")
        else:
            how = f" with {option}" if option else ""
            parts.append(f"runs when enabled{how} ({_where(path.runtime_gates, base, generation)})")
    unbuilt = [
        k for k in path.kernels if k.generations is not None and generation not in k.generations
    ]
    if unbuilt:
        built = "; ".join(f"{k.label} is built for {k.built_for}" for k in unbuilt)
        parts.append(f"and its kernels are not built for it ({built})")
    return f"on {generation}: " + "; ".join(parts)


_LINES = SourceLines()


def _label(hop: Hop, generations: Sequence[str], registry: Registry, base: Path | None) -> Text:
    text = Text()
    gated = hop.kind.is_gate
    if gated:
        for gen in generations:
            ok = gen in hop.admitted
            text.append("✓ " if ok else "✗ ", style="green" if ok else "bold red")
    text.append(f"{hop.kind} ", style="bold")
    text.append(f"{display_path(hop.path, base)}:{hop.line}", style="cyan")
    text.append(f"  {hop.qualname}", style="dim")
    condition = hop.condition if len(hop.condition) <= 160 else hop.condition[:157] + "..."
    text.append(f"\n{condition}")
    if gated:
        admitted = ", ".join(registry.ordered(hop.admitted)) or "none"
        text.append(f"\nadmits: {admitted}", style="dim")
    return text


def _add(
    tree: Tree, node: PathNode, generations: Sequence[str], registry: Registry, base: Path | None
) -> None:
    label = _label(node.hop, generations, registry, base)
    for gen in generations:
        if gen in node.blocking:
            hop = node.blocking[gen]
            label.append(f"\n✗ {gen} shut out by ", style="red")
            column = _LINES.column(hop.path, hop.line, hop.column)
            label.append(f"{display_path(hop.path, base)}:{hop.line}:{column}", style="cyan")
            label.append(f"  {hop.condition}", style="bold red")
    branch = tree.add(label)
    for child in node.children:
        _add(branch, child, generations, registry, base)


def render_tree(
    console: Console,
    path: ActivationPath,
    generations: Sequence[str],
    registry: Registry,
    base: Path | None,
) -> None:
    title = Text.assemble((path.feature.id, "bold"), f" — {path.feature.description}")
    tree = Tree(title)
    for section, items in (("CLI options", path.options), ("settings fields", path.fields)):
        if items:
            sub = tree.add(Text(section, style="bold magenta"))
            for hop in items:
                sub.add(_label(hop, generations, registry, base))
    for section, path_nodes in (
        ("auto-enable gates", path.auto_gates),
        ("runtime gates", path.runtime_gates),
    ):
        sub = tree.add(Text(section, style="bold magenta"))
        if not path_nodes:
            sub.add(Text("none found", style="dim"))
        for node in path_nodes:
            _add(sub, node, generations, registry, base)
    if path.kernels:
        sub = tree.add(Text("kernels", style="bold magenta"))
        for kernel in path.kernels:
            sub.add(_kernel_label(kernel, generations))
    console.print(tree)
    for gen in generations:
        console.print(Text.assemble(("verdict ", "bold"), verdict(path, gen, base)))


def _kernel_label(kernel: KernelSupport, generations: Sequence[str]) -> Text:
    text = Text()
    for gen in generations:
        if kernel.generations is None:
            text.append("? ", style="yellow")
        else:
            ok = gen in kernel.generations
            text.append("✓ " if ok else "✗ ", style="green" if ok else "bold red")
    text.append("kernel ", style="bold")
    text.append(kernel.label, style="cyan")
    text.append(f"\nbuilt for {kernel.built_for}")
    for why in kernel.evidence:
        text.append(f"\n{why}", style="dim")
    return text


def _kernel_dict(kernel: KernelSupport, registry: Registry) -> dict[str, Any]:
    return {
        "kernel": kernel.kernel,
        "library": kernel.source.package if kernel.source else None,
        "version": kernel.source.version if kernel.source else None,
        "source": str(kernel.source.root) if kernel.source else None,
        "generations": None if kernel.generations is None else registry.ordered(kernel.generations),
        "built_for": kernel.built_for,
        "evidence": list(kernel.evidence),
        "reached": list(kernel.reached),
    }


def _node_dict(node: PathNode, registry: Registry, base: Path | None) -> dict[str, Any]:
    return {
        **_hop_dict(node.hop, registry, base),
        "shut_out": {gen: _hop_dict(hop, registry, base) for gen, hop in node.blocking.items()},
        "callers": [_node_dict(c, registry, base) for c in node.children],
    }


def _hop_dict(hop: Hop, registry: Registry, base: Path | None) -> dict[str, Any]:
    return {
        "kind": hop.kind,
        "path": display_path(hop.path, base),
        "line": hop.line,
        "column": _LINES.column(hop.path, hop.line, hop.column),
        "qualname": hop.qualname,
        "text": hop.condition,
        "admitted": registry.ordered(hop.admitted),
    }


def render_json(
    path: ActivationPath, generations: Sequence[str], registry: Registry, base: Path | None
) -> str:
    data = {
        "feature": path.feature.id,
        "description": path.feature.description,
        "required": registry.ordered(path.feature.require),
        "cli_options": [_hop_dict(h, registry, base) for h in path.options],
        "settings_fields": [_hop_dict(h, registry, base) for h in path.fields],
        "auto_enable_gates": [_node_dict(n, registry, base) for n in path.auto_gates],
        "runtime_gates": [_node_dict(n, registry, base) for n in path.runtime_gates],
        "kernels": [_kernel_dict(k, registry) for k in path.kernels],
        "verdicts": {
            gen: {
                "text": verdict(path, gen, base),
                "auto_enable_passes": not failing(path.auto_gates, gen),
                "runtime_passes": not failing(path.runtime_gates, gen),
                "kernels_built": all(
                    k.generations is None or gen in k.generations for k in path.kernels
                ),
            }
            for gen in generations
        },
    }
    return json.dumps(data, indent=2)
