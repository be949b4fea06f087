"""Per-condition containment: an unexpected exception while evaluating one condition
becomes a diagnostic for that condition (its place, the exception type, "please report"),
and the run goes on. `gatecheck --debug` re-raises instead, for developers.

A condition nested deeper than the stack is not a bug but a limit: it is diagnosed as too
deep (even with --debug, as the parser's limit is)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from gatecheck.loading.project import FileDiagnostic

T = TypeVar("T")

INTERNAL_ERROR = "internal error while analysing this condition"
TOO_DEEP = "gate condition too deeply nested to analyse"


def internal_error(path: Path, line: int, column: int, err: Exception) -> FileDiagnostic:
    detail = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
    message = f"{INTERNAL_ERROR} ({detail}); the rest was analysed. Please report this bug"
    return FileDiagnostic(path, line, column, message)


BOUND_HIT = "GC901"


def bound_hit(
    diagnostics: list[FileDiagnostic],
    where: tuple[Path, int, int],
    condition: str,
    bounds: frozenset[str],
    consequence: str,
) -> None:
    """A condition dropped as reading no arch term, but only because a work bound cut its
    evaluation short: said (once), so that a predicate 25 calls deep is not a silent
    "0 gates". Shared by check and audit."""
    text = condition.replace("\n", " ")
    text = text if len(text) <= 80 else text[:77] + "..."
    hit = "; ".join(sorted(bounds))
    message = f"condition `{text}` not evaluated to the end ({hit}): {consequence}"
    diagnostic = FileDiagnostic(*where, message, code=BOUND_HIT)
    if diagnostic not in diagnostics:
        diagnostics.append(diagnostic)


def is_internal_error(diagnostic: FileDiagnostic) -> bool:
    """A contained failure (a gatecheck bug), not a property of the analysed file."""
    return diagnostic.message.startswith(INTERNAL_ERROR)


@dataclass(frozen=True)
class Containment:
    """Runs one condition's step; a failure goes to `diagnostics` (the project's)."""

    diagnostics: list[FileDiagnostic]
    debug: bool = False

    def run(self, path: Path, line: int, column: int, step: Callable[[], T]) -> T | None:
        try:
            return step()
        except RecursionError:
            self.diagnostics.append(FileDiagnostic(path, line, 0, TOO_DEEP))
            return None
        except Exception as err:  # contained: one condition, not the run
            if self.debug:
                raise
            self.diagnostics.append(internal_error(path, line, column, err))
            return None
