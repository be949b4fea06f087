"""The one semantics every view shares: the set of generations for which a condition
can be true (Kleene three-valued evaluation, one Evaluator per generation)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from astroid import nodes

from gatecheck.config.model import Registry, VocabularyEntry
from gatecheck.loading.project import Project
from gatecheck.semantics.evaluator import DEVICE_DEPENDENT, Env, Evaluator, Memo


@dataclass(frozen=True)
class Admission:
    """Generations for which a condition can be true / can be false, and whether any
    naming convention (rather than a readable body) went into the answer."""

    can_be_true: frozenset[str]
    can_be_false: frozenset[str]
    assumed: frozenset[str] = frozenset()

    @property
    def admitted(self) -> frozenset[str]:
        return self.can_be_true


class Semantics:
    """Evaluators for every registry generation over one project, memoized."""

    def __init__(
        self,
        project: Project,
        registry: Registry,
        vocabulary: Sequence[VocabularyEntry] = (),
        *,
        shortcuts: bool = True,
    ) -> None:
        self.project = project
        self.registry = registry
        self.vocabulary = tuple(vocabulary)
        # Without shortcuts every generation is evaluated in full, by its own evaluator
        # and memo: slower, the same answers (tests hold the shortcuts to that).
        self.shortcuts = shortcuts
        self._evaluators: dict[tuple[str, tuple[tuple[str, Any], ...]], Evaluator] = {}
        # Which class a declared instance is, per vendor: read from class names and
        # bases, the same for every generation (see Evaluator._declared).
        self._dispatch: dict[Any, Any] = {}
        # What every generation's evaluator reads alike (see Memo), per flag assumptions.
        self._shared: dict[tuple[tuple[str, Any], ...], tuple[dict[Any, Any], dict[Any, Any]]] = {}

    def evaluator(self, generation: str, flags: Mapping[str, Any] | None = None) -> Evaluator:
        flag_items = tuple(sorted((flags or {}).items(), key=lambda kv: kv[0]))
        key = (generation, flag_items)
        found = self._evaluators.get(key)
        if found is None:
            bindings, calls = (
                ({}, {}) if not self.shortcuts else self._shared.setdefault(flag_items, ({}, {}))
            )
            found = Evaluator(
                self.project,
                self.registry,
                self.registry.get(generation),
                self.vocabulary,
                dict(flag_items),
                _binding_memo=Memo(bindings),
                _call_memo=Memo(calls),
                _dispatch=self._dispatch,
            )
            self._evaluators[key] = found
        return found

    def admission(
        self,
        node: nodes.NodeNG,
        flags: Mapping[str, Any] | None = None,
        env_for: Mapping[str, Env] | None = None,
    ) -> Admission:
        can_true: set[str] = set()
        can_false: set[str] = set()
        assumed: set[str] = set()
        for index, gen in enumerate(self.registry.names):
            evaluator = self.evaluator(gen, flags)
            env = None if env_for is None else dict(env_for[gen])
            with evaluator.tracking() as used:
                t = evaluator.truth(node, env)
            assumed |= used
            if t is not False:
                can_true.add(gen)
            if t is not True:
                can_false.add(gen)
            if self.shortcuts and index == 0 and env_for is None and DEVICE_DEPENDENT not in used:
                # Nothing the device decides was read: every generation answers alike.
                if t is not False:
                    can_true = set(self.registry.names)
                if t is not True:
                    can_false = set(self.registry.names)
                break
        assumed.discard(DEVICE_DEPENDENT)
        return Admission(frozenset(can_true), frozenset(can_false), frozenset(assumed))

    def admitted(
        self, node: nodes.NodeNG, flags: Mapping[str, Any] | None = None
    ) -> frozenset[str]:
        return self.admission(node, flags).can_be_true

    def is_arch_dependent(self, admission: Admission) -> bool:
        every = self.registry.all_names()
        return admission.can_be_true != every or admission.can_be_false != every
