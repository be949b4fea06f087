"""A binding that puts back a value the name held before: a context manager that sets a
module global for a while and restores it (`old = get_arch()` or `old = _ARCH`, then
`_ARCH = override` and, in `finally`, `_ARCH = old`). The restored value is one the
global already held, so it is one of the values its other bindings give: the binding
adds none of its own, and the other bindings of its function take its place. Read as
any other binding, it reached the global's own value from inside the global's
evaluation, a cycle (unknown), and every reader of the global, sglang's
`get_jit_cuda_arch().major >= 9` among them, was unknown.

The shape is read from the code alone (once per name read, resolve.py): in a function,
`NAME = saved` where `saved` is a local bound once, to `NAME` itself or to a call,
without arguments, of a function of the same module every `return` of which gives
`NAME`."""

from __future__ import annotations

from collections.abc import Sequence

from astroid import nodes


def without_restores(bindings: Sequence[nodes.NodeNG]) -> Sequence[nodes.NodeNG]:
    """`bindings` of one name with each that restores a value it held replaced by the
    other bindings of that name in the same function (the override it undoes: astroid's
    lookup may have kept only the restore, the last binding of its function), unless
    that would leave none. The code's alone: callers keep the answer (resolve.py)."""
    if len(bindings) < 2:
        return bindings
    restoring = [b for b in bindings if restores(b)]
    if not restoring:
        return bindings
    kept = [b for b in bindings if not any(b is r for r in restoring)]
    for restore in restoring:
        for other in _same_function_bindings(restore):
            if not any(other is k for k in kept) and not restores(other):
                kept.append(other)
    return kept or bindings


def _same_function_bindings(restore: nodes.NodeNG) -> list[nodes.NodeNG]:
    """The other `global NAME` bindings of the restore's function (nested scopes aside)."""
    function = restore.scope()
    name = str(getattr(restore, "name", ""))
    skip = (nodes.FunctionDef, nodes.ClassDef, nodes.Lambda)
    return [
        b
        for b in function.nodes_of_class(nodes.AssignName, skip_klass=skip)
        if b.name == name and b is not restore
    ]


def restores(binding: nodes.NodeNG) -> bool:
    if not isinstance(binding, nodes.AssignName):
        return False
    statement = binding.parent
    if not (isinstance(statement, nodes.Assign) and statement.targets == [binding]):
        return False
    saved = statement.value
    function = binding.scope()
    if not isinstance(saved, nodes.Name) or not isinstance(function, nodes.FunctionDef):
        return False
    saved_bindings = function.locals.get(saved.name, [])
    if len(saved_bindings) != 1 or not isinstance(saved_bindings[0], nodes.AssignName):
        return False
    saving = saved_bindings[0].parent
    if not (isinstance(saving, nodes.Assign) and saving.targets == [saved_bindings[0]]):
        return False
    return _reads_name(saving.value, str(binding.name), binding.root())


def _reads_name(value: nodes.NodeNG, name: str, module: nodes.NodeNG) -> bool:
    """`name` itself, or `getter()` where `getter` is a function of `module` returning
    `name` on every path that returns."""
    if isinstance(value, nodes.Name):
        return value.name == name
    if not (
        isinstance(value, nodes.Call)
        and isinstance(value.func, nodes.Name)
        and not value.args
        and not value.keywords
        and isinstance(module, nodes.Module)
    ):
        return False
    getters = module.locals.get(value.func.name, [])
    if len(getters) != 1 or not isinstance(getters[0], nodes.FunctionDef):
        return False
    if name in getters[0].locals:
        return False  # the getter's own local of that name, not the global
    returns = [r for r in getters[0].nodes_of_class(nodes.Return, skip_klass=_SCOPES)]
    return bool(returns) and all(
        isinstance(r.value, nodes.Name) and r.value.name == name for r in returns
    )


_SCOPES = (nodes.FunctionDef, nodes.ClassDef, nodes.Lambda)
