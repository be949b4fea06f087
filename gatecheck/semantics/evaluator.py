"""Evaluate expressions for one GPU generation: arch terms to concrete values, everything
else to UNKNOWN, following bindings across modules and reading function bodies.

One Evaluator per (generation, feature-flag assumptions); it memoizes bindings and calls,
so a whole scan evaluates each predicate body once per generation.
"""

from __future__ import annotations

import operator
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from astroid import nodes

from gatecheck.config.model import Generation, Registry, VocabularyEntry
from gatecheck.loading.project import Project, bound_in_scopes, lookup
from gatecheck.loading.resolve import (
    absolute_import_name,
    decorator_names,
    destructure_path,
    import_target,
    imported_name,
    is_abstract_body,
)
from gatecheck.semantics import oracle
from gatecheck.semantics.values import (
    UNKNOWN,
    Builtin,
    Capability,
    ClassRef,
    DeviceProps,
    EnumMember,
    ExternalRef,
    FunctionRef,
    Identity,
    InstanceRef,
    ModuleRef,
    NoneOr,
    PartialRef,
    TritonTarget,
    join,
    join_optional,
    plain,
    truth,
)

Env = dict[str, Any]
MAX_CALL_DEPTH = 24
# Recorded with the conventions in `assumed` (and through every memo) whenever the device
# decided a value: an evaluation that never records it gives the same answer for every
# generation, so the other generations need not be evaluated at all.
DEVICE_DEPENDENT = "\x00device-dependent"

_CACHE_DECORATORS = {"lru_cache", "cache", "cached", "wraps", "cached_property"}
_FUNCTOOLS_PARTIAL = {"functools.partial", "partial"}

_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "is": operator.is_,
    "is not": operator.is_not,
}
_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
    "/": operator.truediv,
    "%": operator.mod,
    "**": operator.pow,
    "&": operator.and_,
    "|": operator.or_,
}
# Methods of known values that are safe to call (pure, no I/O).
_SAFE_METHODS = {
    str: {
        "split",
        "startswith",
        "endswith",
        "lower",
        "upper",
        "strip",
        "replace",
        "rstrip",
        "lstrip",
        "find",
        "partition",
    },
    Capability: {"to_int", "as_version_str"},
    dict: {"get", "keys", "values", "items"},
}


def _contains_unknown(value: Any) -> bool:
    if value is UNKNOWN:
        return True
    if isinstance(value, (tuple, list, frozenset, set)):
        return any(_contains_unknown(v) for v in value)
    return False


class Memo:
    """An Evaluator's memo of bindings or calls, each with what it recorded. An entry that
    read nothing from the device is the same for every generation (the generation only
    enters through intrinsics and conventions, which record DEVICE_DEPENDENT), so it goes
    to a store shared by the evaluators of all generations with the same flag
    assumptions: each binding or call is evaluated once per run, not once per generation."""

    def __init__(self, shared: dict[Any, tuple[Any, frozenset[str]]] | None = None) -> None:
        self.own: dict[Any, tuple[Any, frozenset[str]]] = {}
        self.shared: dict[Any, tuple[Any, frozenset[str]]] = {} if shared is None else shared

    def get(self, key: Any) -> tuple[Any, frozenset[str]] | None:
        found = self.own.get(key)
        return self.shared.get(key) if found is None else found

    def put(self, key: Any, value: Any, recorded: frozenset[str]) -> None:
        store = self.own if DEVICE_DEPENDENT in recorded else self.shared
        store[key] = (value, recorded)


@dataclass
class Evaluator:
    project: Project
    registry: Registry
    generation: Generation
    vocabulary: Sequence[VocabularyEntry] = ()
    # Attribute/variable names standing for a feature flag, and the value to read for them.
    flag_values: Mapping[str, Any] = field(default_factory=dict)
    assumed: set[str] = field(default_factory=set)
    _binding_memo: Memo = field(default_factory=lambda: Memo())
    _call_memo: Memo = field(default_factory=lambda: Memo())
    _active: set[int] = field(default_factory=set)
    _depth: int = 0
    # Facts about classes that no generation changes, shared by every generation's
    # evaluator (Semantics gives them one dict): runtime platform dispatch per (declared
    # class, vendor), attributes set on the instance per class.
    _dispatch: dict[Any, Any] = field(default_factory=dict)

    # -- entry points --------------------------------------------------------------------
    def value(self, node: nodes.NodeNG, env: Env | None = None) -> Any:
        try:
            return self._eval(node, env)
        except RecursionError:
            return UNKNOWN

    def truth(self, node: nodes.NodeNG, env: Env | None = None) -> Any:
        return truth(self.value(node, env))

    @contextmanager
    def tracking(self) -> Iterator[set[str]]:
        """Collect the naming conventions used while evaluating (results are 'assumed'),
        plus DEVICE_DEPENDENT when any value came from the device."""
        saved = self.assumed
        self.assumed = set()
        try:
            yield self.assumed
        finally:
            # In place: an enclosing tracking() holds `saved` and must see these too.
            saved |= self.assumed
            self.assumed = saved

    # -- expressions ---------------------------------------------------------------------
    def _eval(self, node: nodes.NodeNG, env: Env | None) -> Any:
        if isinstance(node, nodes.Const):
            return node.value
        if isinstance(node, nodes.Name):
            if node.name in self.flag_values:
                return self.flag_values[node.name]
            if env is not None and node.name in env:
                return plain(env[node.name])
            return self.resolve_name(node, env)
        if isinstance(node, nodes.Attribute):
            if node.attrname in self.flag_values:
                return self.flag_values[node.attrname]
            return self.attribute(self._eval(node.expr, env), node.attrname)
        if isinstance(node, nodes.BoolOp):
            return self._boolop(node, env)
        if isinstance(node, nodes.UnaryOp):
            operand = self._eval(node.operand, env)
            if node.op == "not":
                t = truth(operand)
                return UNKNOWN if t is UNKNOWN else (not t)
            if _contains_unknown(operand):
                return UNKNOWN
            unary: dict[str, Callable[[Any], Any]] = {
                "-": operator.neg,
                "+": operator.pos,
                "~": operator.invert,
            }
            if node.op not in unary:
                return UNKNOWN
            return self._safe(lambda: unary[node.op](operand))
        if isinstance(node, nodes.Compare):
            return self._compare(node, env)
        if isinstance(node, nodes.BinOp):
            left = self._eval(node.left, env)
            if _contains_unknown(left) or node.op not in _BINARY:
                return UNKNOWN  # whatever the right side is
            right = self._eval(node.right, env)
            if _contains_unknown(right):
                return UNKNOWN
            return self._safe(lambda: _BINARY[node.op](left, right))
        if isinstance(node, nodes.Call):
            return self._call_node(node, env)
        if isinstance(node, nodes.Tuple):
            return tuple(self._eval(e, env) for e in node.elts)
        if isinstance(node, nodes.List):
            return [self._eval(e, env) for e in node.elts]
        if isinstance(node, nodes.Set):
            values = [self._eval(e, env) for e in node.elts]
            return tuple(values) if _contains_unknown(values) else self._safe(lambda: set(values))
        if isinstance(node, nodes.Dict):
            return self._dict(node, env)
        if isinstance(node, nodes.Subscript):
            return self._subscript(node, env)
        if isinstance(node, nodes.IfExp):
            t = truth(self._eval(node.test, env))
            if t is UNKNOWN:
                return join(self._eval(node.body, env), self._eval(node.orelse, env))
            return self._eval(node.body if t else node.orelse, env)
        if isinstance(node, nodes.NamedExpr):
            value = self._eval(node.value, env)
            if env is not None:
                env[node.target.name] = value
            return value
        if isinstance(node, nodes.Lambda):
            return FunctionRef(node)
        if isinstance(node, (nodes.GeneratorExp, nodes.ListComp, nodes.SetComp)):
            return self._comprehension(node, env)
        if isinstance(node, nodes.JoinedStr):
            return self._fstring(node, env)
        return UNKNOWN

    def _comprehension(
        self, node: nodes.GeneratorExp | nodes.ListComp | nodes.SetComp, env: Env | None
    ) -> Any:
        """`any(arch in name for arch in ["gfx90a", "gfx942"])`: one `for` over a known
        list, tuple or string, its `if`s known for every item: the items as a tuple (a
        list for a list comprehension), as far as each is known. Anything else: unknown."""
        if len(node.generators) != 1:
            return UNKNOWN
        loop = node.generators[0]
        if loop.is_async or not isinstance(loop.target, nodes.AssignName):
            return UNKNOWN
        items = self._eval(loop.iter, env)
        if not isinstance(items, (tuple, list, str)) or _contains_unknown(items):
            return UNKNOWN
        if len(items) > _MAX_COMPREHENSION:
            return UNKNOWN
        values: list[Any] = []
        for item in items:
            inner = dict(env or {})
            inner[loop.target.name] = item
            keep = True
            for test in loop.ifs:
                verdict = truth(self._eval(test, inner))
                if verdict is UNKNOWN:
                    return UNKNOWN
                keep = keep and verdict
            if keep:
                values.append(self._eval(node.elt, inner))
        if isinstance(node, nodes.ListComp):
            return values
        if isinstance(node, nodes.SetComp):
            return tuple(values) if _contains_unknown(values) else self._safe(lambda: set(values))
        return tuple(values)

    def _fstring(self, node: nodes.JoinedStr, env: Env | None) -> Any:
        # f"{major * 10 + minor}" style arch strings: known when every part is.
        parts: list[str] = []
        for value in node.values:
            if isinstance(value, nodes.Const):
                parts.append(str(value.value))
                continue
            if not isinstance(value, nodes.FormattedValue) or value.format_spec is not None:
                return UNKNOWN
            inner = self._eval(value.value, env)
            if _contains_unknown(inner) or value.conversion not in (-1, None, 115):
                return UNKNOWN
            if not isinstance(inner, (int, str, float, bool)) or inner is None:
                return UNKNOWN
            parts.append(str(inner))
        return "".join(parts)

    @staticmethod
    def _safe(thunk: Callable[[], Any]) -> Any:
        try:
            return thunk()
        except Exception:
            return UNKNOWN

    def _boolop(self, node: nodes.BoolOp, env: Env | None) -> Any:
        # Python's value semantics (`a and b` is a or b), made three-valued (Kleene).
        result: Any = None
        undecided = False
        for index, operand in enumerate(node.values):
            value = self._eval(operand, env)
            t = truth(value)
            last = index == len(node.values) - 1
            if node.op == "and":
                if t is False:
                    return False if undecided else value
                if t is UNKNOWN:
                    undecided = True
                result = value
            else:
                if t is True:
                    return True if undecided else value
                if t is UNKNOWN:
                    undecided = True
                result = value
            if last:
                break
        return UNKNOWN if undecided else result

    def _compare(self, node: nodes.Compare, env: Env | None) -> Any:
        left = self._eval(node.left, env)
        if left is UNKNOWN and len(node.ops) == 1:
            return UNKNOWN  # whatever the right side is (see _compare_one)
        outcome: Any = True
        for op, right_node in node.ops:
            right = self._eval(right_node, env)
            step = self._compare_one(op, left, right)
            if step is False:
                return False
            if step is UNKNOWN or outcome is UNKNOWN:
                outcome = UNKNOWN
            left = right
        return outcome

    def _compare_one(self, op: str, left: Any, right: Any) -> Any:
        left, right = self._as_tuple(left), self._as_tuple(right)
        if op in ("in", "not in"):
            if left is UNKNOWN or right is UNKNOWN:
                return UNKNOWN
            found: Any
            if isinstance(right, (tuple, list)) and _contains_unknown(right):
                known = [v for v in right if not _contains_unknown(v)]
                found = True if left in known else UNKNOWN
            else:
                found = self._safe(lambda: left in right)
            if found is UNKNOWN:
                return UNKNOWN
            return found if op == "in" else not found
        if _contains_unknown(left) or _contains_unknown(right):
            return UNKNOWN
        if op in ("is", "is not") and not (left is None or right is None):
            # Identity of ints/strings is an implementation detail; only `is None` is known.
            return UNKNOWN
        result = self._safe(lambda: _COMPARE[op](left, right))
        return result if isinstance(result, bool) else UNKNOWN

    def _dict(self, node: nodes.Dict, env: Env | None) -> Any:
        out: dict[Any, Any] = {}
        for key_node, value_node in node.items:
            if isinstance(key_node, nodes.DictUnpack):
                return UNKNOWN
            key = self._eval(key_node, env)
            if _contains_unknown(key):
                return UNKNOWN
            try:
                out[key] = self._eval(value_node, env)
            except TypeError:
                return UNKNOWN
        return out

    def _subscript(self, node: nodes.Subscript, env: Env | None) -> Any:
        container = self._eval(node.value, env)
        if container is UNKNOWN:
            return UNKNOWN
        if isinstance(node.slice, nodes.Slice):
            parts = [
                None if p is None else self._eval(p, env)
                for p in (node.slice.lower, node.slice.upper, node.slice.step)
            ]
            if _contains_unknown(parts):
                return UNKNOWN
            return self._safe(lambda: container[slice(*parts)])
        index = self._eval(node.slice, env)
        if _contains_unknown(index):
            return UNKNOWN
        if isinstance(container, dict):
            # A missing key is the feature being off (or a KeyError): both "not True".
            return container.get(index, False) if _all_known_keys(container) else UNKNOWN
        if isinstance(container, (tuple, list, str)):
            return self._safe(lambda: container[index])
        return UNKNOWN

    # -- names and bindings --------------------------------------------------------------
    def resolve_name(self, node: nodes.Name, env: Env | None = None) -> Any:
        if not node.name.startswith("__") and not bound_in_scopes(node, node.name):
            # astroid's lookup would end in its builtins module, read below as "not
            # bound": skip it (and never make that module).
            star = self._star_imported(node)
            return star if star is not None else _BUILTINS.get(node.name, UNKNOWN)
        try:
            scope, assigns = lookup(node, node.name, bound=True)
        except Exception:
            return UNKNOWN
        if not assigns or (isinstance(scope, nodes.Module) and scope.name == "builtins"):
            star = self._star_imported(node)
            return star if star is not None else _BUILTINS.get(node.name, UNKNOWN)
        values = [self._module_binding(a, node.name) for a in assigns]
        result = values[0]
        for v in values[1:]:
            result = join(result, v)
        return result

    def _star_imported(self, node: nodes.Name) -> Any:
        # astroid cannot expand `from x import *` for modules outside sys.path; we can.
        module = node.root()
        if not isinstance(module, nodes.Module):
            return None
        value = self.module_attribute(str(module.name), node.name)
        return None if value is UNKNOWN else value

    def binding_value(self, node: nodes.NodeNG) -> Any:
        key = id(node)
        memo = self._binding_memo.get(key)
        if memo is not None:
            value, recorded = memo
            self.assumed |= recorded
            return value
        if key in self._active:
            return UNKNOWN
        self._active.add(key)
        try:
            with self.tracking() as used:
                value = self._binding_value(node)
            self._binding_memo.put(key, value, frozenset(used))
            return value
        finally:
            self._active.discard(key)

    def _binding_value(self, node: nodes.NodeNG) -> Any:
        if isinstance(node, nodes.FunctionDef):
            return self._function_value(node)
        if isinstance(node, nodes.ClassDef):
            return ClassRef(node)
        if isinstance(node, nodes.ImportFrom):
            return UNKNOWN
        if isinstance(node, nodes.Import):
            return UNKNOWN
        if isinstance(node, (nodes.AssignName, nodes.AssignAttr)):
            parent = node.parent
            while isinstance(parent, (nodes.Tuple, nodes.List, nodes.Starred)):
                parent = parent.parent
            if _under_type_checking(parent):
                # Declarations for type checkers (vllm's envs, current_platform): the
                # runtime value comes from elsewhere (a module __getattr__, env vars).
                annotation = getattr(parent, "annotation", None)
                declared = None if annotation is None else self._eval(annotation, None)
                return self._declared(declared.node) if isinstance(declared, ClassRef) else UNKNOWN
            if isinstance(parent, nodes.Assign):
                rhs = self._eval(parent.value, None)
                for target in parent.targets:
                    path = destructure_path(target, node)
                    if path is not None:
                        return _index_path(rhs, path)
                return UNKNOWN
            if isinstance(parent, nodes.AnnAssign):
                if parent.value is not None:
                    return self._eval(parent.value, None)
                # `current_platform: Platform` (TYPE_CHECKING declarations): an instance.
                annotated = self._eval(parent.annotation, None)
                return (
                    self._declared(annotated.node) if isinstance(annotated, ClassRef) else UNKNOWN
                )
            if isinstance(parent, nodes.NamedExpr):
                return self._eval(parent.value, None)
            if isinstance(parent, nodes.Arguments):
                return self._parameter_value(node, parent)
            return UNKNOWN
        return UNKNOWN

    def _declared(self, cls: nodes.ClassDef) -> InstanceRef:
        """An instance declared by its type only (`current_platform: Platform`): when
        the classes below `cls` in its own package name exactly one most general class
        for the device's vendor (CudaPlatformBase, RocmPlatform), that class's instance,
        made without arguments (marked assumed); else an instance of `cls`."""
        vendors = {g.vendor for g in self.registry.generations}
        if not any(self._vendor_class(cls, vendor) is not None for vendor in vendors):
            return InstanceRef(cls)
        # Which class it is depends on the vendor (even where no class is found).
        self.assumed.add(DEVICE_DEPENDENT)
        served = self._vendor_class(cls, self.generation.vendor)
        if served is None:
            return InstanceRef(cls)
        self.assumed.add(
            f"'{cls.name}' is taken to be a '{served.name}' on {self.generation.vendor} "
            "(runtime platform dispatch, by class name)"
        )
        return InstanceRef(served, defaults_hold=True)

    def _vendor_class(self, cls: nodes.ClassDef, vendor: str) -> nodes.ClassDef | None:
        key = ("vendor-class", id(cls), vendor)
        if key in self._dispatch:
            return self._dispatch[key]
        self._dispatch[key] = None  # a cycle through the subclasses' modules: no dispatch
        subclasses = [k for k in self._subclasses(cls) if k is not cls]
        serving = [k for k in subclasses if oracle.serves_vendor(str(k.name), vendor)]
        general = [
            k
            for k in serving
            if not any(a is not k and any(a is b for b in serving) for a in self._mro(k))
        ]
        found = general[0] if len(general) == 1 else None
        self._dispatch[key] = found
        return found

    def _subclasses(self, cls: nodes.ClassDef) -> list[nodes.ClassDef]:
        """Classes named for some vendor, defined at the top of modules in the folder of
        `cls`'s module (and below), whose MRO holds `cls`. Only files that define such a
        name are built."""
        key = ("subclasses", id(cls))
        if key in self._dispatch:
            return list(self._dispatch[key])
        self._dispatch[key] = []
        module = cls.root()
        if not isinstance(module, nodes.Module) or not module.file:
            return []
        prefix = os.path.join(os.path.dirname(str(module.file)), "")
        vendors = {g.vendor for g in self.registry.generations}
        found: list[nodes.ClassDef] = []
        for path in self.project.files:
            if not str(path).startswith(prefix):
                continue
            names = _CLASS_NAME.findall(self.project.text_of(path) or "")
            if not any(oracle.serves_vendor(n, v) for n in names for v in vendors):
                continue
            candidate = self.project.module_at(path)
            if candidate is None:
                continue
            for stmt in candidate.body:
                if (
                    isinstance(stmt, nodes.ClassDef)
                    and stmt.bases
                    and any(oracle.serves_vendor(str(stmt.name), v) for v in vendors)
                    and any(k is cls for k in self._mro(stmt))
                ):
                    found.append(stmt)
        self._dispatch[key] = found
        return list(found)

    def _parameter_value(self, node: nodes.NodeNG, args: nodes.Arguments) -> Any:
        func = args.parent
        positional = list(args.posonlyargs) + list(args.args)
        if (
            isinstance(func, nodes.FunctionDef)
            and positional
            and positional[0] is node
            and isinstance(func.parent, nodes.ClassDef)
        ):
            decorators = decorator_names(func)
            if "staticmethod" in decorators:
                return UNKNOWN
            if "classmethod" in decorators:
                return ClassRef(func.parent)
            return InstanceRef(func.parent)
        return UNKNOWN

    def _function_value(self, node: nodes.FunctionDef) -> Any:
        # Decorators are read as transparent: caching (lru_cache), registration and
        # compile wrappers keep what the body computes.
        return FunctionRef(node)

    def _import_from_value(self, node: nodes.ImportFrom, local: str) -> Any:
        original = imported_name(node, local)
        if original is None:
            return UNKNOWN
        return self.module_attribute(absolute_import_name(node), original)

    def _import_value(self, node: nodes.Import, local: str) -> Any:
        target = import_target(node, local)
        if target is None:
            return UNKNOWN
        name, _aliased = target
        return ModuleRef(name) if self.project.has_module(name) else ExternalRef(name)

    def module_attribute(
        self, module_name: str, attr: str, _seen: frozenset[str] = frozenset()
    ) -> Any:
        module = self.project.module(module_name)
        if module is None:
            if self.project.has_module(f"{module_name}.{attr}"):
                return ModuleRef(f"{module_name}.{attr}")
            return ExternalRef(f"{module_name}.{attr}")
        bound = module.locals.get(attr)
        if bound:
            values = [self._module_binding(b, attr) for b in bound]
            result = values[0]
            for v in values[1:]:
                result = join(result, v)
            return result
        if self.project.has_module(f"{module_name}.{attr}"):
            return ModuleRef(f"{module_name}.{attr}")
        if module_name in _seen:
            return UNKNOWN
        for stmt in module.body:
            if isinstance(stmt, nodes.ImportFrom) and stmt.names and stmt.names[0][0] == "*":
                source = absolute_import_name(stmt)
                if self.project.module(source) is not None:
                    value = self.module_attribute(source, attr, _seen | {module_name})
                    if value is not UNKNOWN:
                        return value
                else:
                    return ExternalRef(f"{source}.{attr}")
        return UNKNOWN

    def _module_binding(self, bound: nodes.NodeNG, local: str) -> Any:
        if isinstance(bound, nodes.ImportFrom):
            key = (id(bound), local)
            memo = self._call_memo.get(key)
            if memo is not None:
                value, recorded = memo
                self.assumed |= recorded
                return value
            if id(bound) in self._active:
                return UNKNOWN
            self._active.add(id(bound))
            try:
                with self.tracking() as used:
                    value = self._import_from_value(bound, local)
                self._call_memo.put(key, value, frozenset(used))
                return value
            finally:
                self._active.discard(id(bound))
        if isinstance(bound, nodes.Import):
            return self._import_value(bound, local)
        return self.binding_value(bound)

    # -- attributes ----------------------------------------------------------------------
    def attribute(self, receiver: Any, name: str) -> Any:
        if receiver is UNKNOWN:
            return UNKNOWN
        if isinstance(receiver, ModuleRef):
            return self.module_attribute(receiver.name, name)
        if isinstance(receiver, ExternalRef):
            dotted = f"{receiver.dotted}.{name}"
            intrinsic = oracle.intrinsic_attribute_or_sentinel(dotted, self.generation)
            if oracle.is_not_intrinsic(intrinsic):
                return ExternalRef(dotted)
            self.assumed.add(DEVICE_DEPENDENT)
            return intrinsic
        if isinstance(receiver, ClassRef):
            return self._class_attribute(receiver.node, name, receiver)
        if isinstance(receiver, InstanceRef):
            if name in receiver.attrs:
                return receiver.attrs[name]
            return self._class_attribute(receiver.cls, name, receiver)
        if isinstance(receiver, Builtin) and receiver.name == "object":
            if name in ("__getattribute__", "__setattr__"):
                return Builtin(f"object.{name}")
            return UNKNOWN
        if isinstance(receiver, DeviceProps):
            if name in ("major", "minor"):
                return getattr(receiver, name)
            if name == "gcnArchName":
                # CUDA devices have no gfx arch: any `"gfx9" in name` test is false there.
                return receiver.gcn_arch if receiver.gcn_arch is not None else ""
            return UNKNOWN
        if isinstance(receiver, TritonTarget):
            return getattr(receiver, name, UNKNOWN)
        if isinstance(receiver, Capability) and name in ("major", "minor"):
            return getattr(receiver, name)
        for kind, methods in _SAFE_METHODS.items():
            if isinstance(receiver, kind) and name in methods:
                return getattr(receiver, name)
        return UNKNOWN

    def _class_attribute(
        self, cls: nodes.ClassDef, name: str, receiver: Any, fallback: bool = True
    ) -> Any:
        """`fallback`: ask `__getattr__` when the lookup fails (not for
        `object.__getattribute__`)."""
        for klass in self._mro(cls):
            bound = klass.locals.get(name)
            if not bound:
                continue
            node = bound[-1]
            if isinstance(receiver, ClassRef) and self._is_enum(klass):
                member = self._enum_member(klass, name)
                if member is not None:
                    return member
            if (
                isinstance(receiver, InstanceRef)
                and not isinstance(node, (nodes.FunctionDef, nodes.ClassDef))
                and (not receiver.defaults_hold or self._instance_assigns(receiver.cls, name))
            ):
                # A class-level value read through an instance is only a default (dataclass
                # fields, config objects): the instance may hold anything. Unless it was
                # made without arguments and no method assigns it on the instance.
                return UNKNOWN
            if isinstance(node, nodes.FunctionDef):
                decorators = decorator_names(node)
                if "staticmethod" in decorators:
                    return FunctionRef(node, None, klass)
                if "classmethod" in decorators:
                    owner = receiver if isinstance(receiver, ClassRef) else ClassRef(cls)
                    return FunctionRef(node, owner, klass)
                if isinstance(receiver, InstanceRef):
                    method = FunctionRef(node, receiver, klass)
                    if "property" in decorators or "cached_property" in decorators:
                        return self.call(method, [], {})
                    return method
                return FunctionRef(node, None, klass)
            return self.binding_value(node)
        if isinstance(receiver, InstanceRef):
            assigned = cls.instance_attrs.get(name)
            values = [self.binding_value(a) for a in assigned or ()]
            set_on_self = self._set_on_self(cls)
            values += [self._eval(v, None) for v in (set_on_self or {}).get(name, ())]
            if values:
                result = values[0]
                for v in values[1:]:
                    result = join(result, v)
                return result
            if fallback:
                return self._getattr_hook(cls, name, receiver)
        return UNKNOWN

    def _set_on_self(self, cls: nodes.ClassDef) -> dict[str, list[nodes.NodeNG]] | None:
        """Values a method gives the instance through `object.__setattr__(self, "x", v)`
        or `setattr(self, "x", v)`, by name; None when a name is only known at runtime.
        Once per class for all generations (the dict is Semantics')."""
        key = ("set_on_self", id(cls))
        if key not in self._dispatch:
            self._dispatch[key] = _setattr_calls(cls)
        found: dict[str, list[nodes.NodeNG]] | None = self._dispatch[key]
        return found

    def _getattr_hook(self, cls: nodes.ClassDef, name: str, receiver: InstanceRef) -> Any:
        """The normal lookup failed: Python asks the class's `__getattr__` (a table of
        facts answered by predicate calls). Only when every class on the way is known and
        none sets attributes on the instance under names known only at runtime: else
        the lookup may not have failed at all."""
        if name.startswith("__") and name.endswith("__"):
            return UNKNOWN
        hook: tuple[nodes.FunctionDef, nodes.ClassDef] | None = None
        for klass in self._mro(cls):
            if self._set_on_self(klass) is None:
                return UNKNOWN
            for base in klass.bases:
                value = self._eval(base, None)
                known_base = isinstance(value, ClassRef) or (
                    isinstance(value, (Builtin, ExternalRef)) and _plain_base(value)
                )
                if not known_base:
                    return UNKNOWN
            bound = klass.locals.get("__getattr__")
            if hook is None and bound and isinstance(bound[-1], nodes.FunctionDef):
                hook = (bound[-1], klass)
        if hook is None:
            return UNKNOWN
        return self.call(FunctionRef(hook[0], receiver, hook[1]), [name], {})

    def _instance_assigns(self, cls: nodes.ClassDef, name: str) -> bool:
        return any(name in klass.instance_attrs for klass in self._mro(cls))

    def _is_enum(self, cls: nodes.ClassDef) -> bool:
        """A subclass of enum.Enum (plain: IntEnum/StrEnum/Flag members compare equal
        to their values, so their values are read as they are)."""
        for klass in self._mro(cls):
            for base in klass.bases:
                value = self._eval(base, None)
                if isinstance(value, ExternalRef) and value.dotted in _PLAIN_ENUMS:
                    return True
        return False

    def _enum_member(self, cls: nodes.ClassDef, name: str) -> EnumMember | None:
        """`Color.RED`: the member (an alias, a later name with an earlier member's known
        value, is that member); None for methods and names that are not members."""
        values: dict[Any, str] = {}
        for stmt in cls.body:
            if not isinstance(stmt, nodes.Assign) or len(stmt.targets) != 1:
                continue
            target = stmt.targets[0]
            if not isinstance(target, nodes.AssignName) or target.name.startswith("_"):
                continue
            value = stmt.value.value if isinstance(stmt.value, nodes.Const) else UNKNOWN
            canonical = target.name
            if value is not UNKNOWN and isinstance(value, (int, str, float, bool, bytes)):
                canonical = values.setdefault(value, target.name)
            if target.name == name:
                return EnumMember(cls, canonical)
        return None

    def _mro(
        self, cls: nodes.ClassDef, _seen: frozenset[int] = frozenset()
    ) -> Iterator[nodes.ClassDef]:
        """The class, then each base's order in turn, each class once. Lazy: a lookup
        that the class itself answers never resolves its bases (nor builds the modules
        they come from)."""
        if id(cls) in _seen:
            return
        yielded: set[int] = {id(cls)}
        yield cls
        for base in cls.bases:
            value = self._eval(base, None)
            if isinstance(value, ClassRef):
                for klass in self._mro(value.node, _seen | {id(cls)}):
                    if id(klass) not in yielded:
                        yielded.add(id(klass))
                        yield klass

    # -- calls ---------------------------------------------------------------------------
    def _call_node(self, node: nodes.Call, env: Env | None, optional: bool = False) -> Any:
        func = self._eval(node.func, env)
        if func is UNKNOWN:
            # No body to call: the name alone decides (the arguments cannot).
            return self._fallback(node.func, func)
        keywords = node.keywords or ()
        if any(isinstance(a, nodes.Starred) for a in node.args) or any(
            k.arg is None for k in keywords
        ):
            return self._fallback(node.func, func)
        if isinstance(func, ExternalRef) and not _reads_arguments(func):
            # An intrinsic or a convention: decided by the dotted name alone.
            return self._call_external(func, (), {})
        if (
            isinstance(func, Builtin)
            and func.name in ("isinstance", "hasattr")
            and len(node.args) == 2
            and not keywords
        ):
            # Nothing is an instance of, or has an attribute on, an unknown value: the
            # second argument (a class to resolve, perhaps a module to build) cannot matter.
            subject = self._eval(node.args[0], env)
            if subject is UNKNOWN:
                return UNKNOWN
            return self.call(func, [subject, self._eval(node.args[1], env)], {}, node.func)
        args = [self._eval(arg, env) for arg in node.args]
        kwargs = {str(k.arg): self._eval(k.value, env) for k in keywords}
        return self.call(func, args, kwargs, syntax=node.func, optional=optional)

    def _fallback(self, func_node: nodes.NodeNG, func: Any) -> Any:
        """No body to read: a naming convention or the vocabulary, marked assumed."""
        name = _syntactic_name(func_node)
        if isinstance(func, ExternalRef):
            name = func.dotted
        if name is None:
            return UNKNOWN
        return self._by_convention(name)

    def _by_convention(self, name: str) -> Any:
        convention = oracle.convention_for(name, self.registry, self.vocabulary)
        if convention is None:
            return UNKNOWN
        self.assumed.add(convention.why)
        self.assumed.add(DEVICE_DEPENDENT)
        if convention.kind == "capability":
            return oracle.capability(self.generation)
        if convention.kind == "sm_version":
            return self.generation.sm_version
        return self.generation.name in convention.admits

    def call(
        self,
        func: Any,
        args: Sequence[Any],
        kwargs: Mapping[str, Any],
        syntax: nodes.NodeNG | None = None,
        optional: bool = False,
    ) -> Any:
        """`optional`: the caller binds the result to a local variable, which may hold
        NoneOr (see values.NoneOr); everyone else gets plain values."""
        if isinstance(func, FunctionRef):
            result = self._call_function(func, list(args), dict(kwargs))
            return result if optional else plain(result)
        if isinstance(func, PartialRef):
            merged = dict(func.kwargs)
            merged.update(kwargs)
            return self.call(func.func, [*func.args, *args], merged, syntax, optional)
        if isinstance(func, ClassRef):
            return self._instantiate(func.node, args, kwargs)
        if isinstance(func, Identity):
            return args[0] if args else UNKNOWN
        if isinstance(func, ExternalRef):
            return self._call_external(func, args, kwargs)
        if isinstance(func, Builtin):
            return self._call_builtin(func.name, args, kwargs)
        if callable(func) and not isinstance(func, type):
            if _contains_unknown(list(args)) or _contains_unknown(list(kwargs.values())):
                return UNKNOWN
            return self._safe(lambda: func(*args, **kwargs))
        if syntax is not None:
            return self._fallback(syntax, func)
        return UNKNOWN

    def _call_external(
        self, func: ExternalRef, args: Sequence[Any], kwargs: Mapping[str, Any]
    ) -> Any:
        intrinsic = oracle.intrinsic_call(func.dotted, self.generation)
        if intrinsic is not None:
            self.assumed.add(DEVICE_DEPENDENT)
            return intrinsic
        if _is_partial(func):
            if not args:
                return UNKNOWN
            return PartialRef(args[0], tuple(args[1:]), tuple(kwargs.items()))
        if _is_cache_decorator(func):
            if args and _is_callable_value(args[0]):
                return args[0]
            return Identity()
        return self._by_convention(func.dotted)

    def _call_builtin(self, name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        if name == "getattr" and len(args) >= 2 and isinstance(args[1], str):
            found = self.attribute(args[0], args[1])
            if found is UNKNOWN and len(args) == 3:
                return UNKNOWN
            return found
        if name == "hasattr" and len(args) == 2 and isinstance(args[1], str):
            return self._hasattr(args[0], args[1])
        if name == "object.__getattribute__" and len(args) == 2 and isinstance(args[1], str):
            # The normal lookup, without the class's __getattr__.
            receiver, attr = args
            if isinstance(receiver, InstanceRef):
                if attr in receiver.attrs:
                    return receiver.attrs[attr]
                return self._class_attribute(receiver.cls, attr, receiver, fallback=False)
            return self.attribute(receiver, attr)
        if name == "dict" and not args:
            return dict(kwargs)
        if name == "isinstance" and len(args) == 2:
            return self._isinstance(args[0], args[1])
        if _contains_unknown(list(args)) or kwargs:
            if name in ("any", "all") and args and isinstance(args[0], (tuple, list)):
                return self._any_all(name, args[0])
            return UNKNOWN
        impl = _BUILTIN_IMPLS.get(name)
        if impl is None:
            return UNKNOWN
        return self._safe(lambda: impl(*args))

    def _hasattr(self, value: Any, name: str) -> Any:
        if isinstance(value, ExternalRef) and (value.dotted, name) in _ALWAYS_PRESENT:
            return True
        if isinstance(value, DeviceProps):
            return name in ("major", "minor", "name") or (
                name == "gcnArchName" and bool(value.gcn_arch)
            )
        return UNKNOWN

    def _isinstance(self, value: Any, kinds: Any) -> Any:
        options = kinds if isinstance(kinds, tuple) else (kinds,)
        verdicts = [self._isinstance_one(value, kind) for kind in options]
        if True in verdicts:
            return True
        return UNKNOWN if UNKNOWN in verdicts else False

    def _isinstance_one(self, value: Any, kind: Any) -> Any:
        if value is UNKNOWN:
            return UNKNOWN
        if isinstance(kind, Builtin) and kind.name in _BUILTIN_TYPES:
            python_type = _BUILTIN_TYPES[kind.name]
            if isinstance(value, InstanceRef):
                return python_type is tuple and self._is_namedtuple(value.cls)
            if isinstance(value, (FunctionRef, PartialRef, ClassRef, ModuleRef, ExternalRef)):
                return False
            return isinstance(value, python_type)
        if isinstance(kind, ClassRef) and isinstance(value, InstanceRef):
            return any(k is kind.node for k in self._mro(value.cls)) or UNKNOWN
        return UNKNOWN

    def _is_namedtuple(self, cls: nodes.ClassDef) -> bool:
        for klass in self._mro(cls):
            for base in klass.bases:
                name = base.as_string()
                if name.endswith("NamedTuple") or name.endswith("namedtuple"):
                    return True
        return False

    def _as_tuple(self, value: Any) -> Any:
        """NamedTuple instances compare as tuples of their fields."""
        if isinstance(value, InstanceRef) and self._is_namedtuple(value.cls):
            fields = _annotated_fields(value.cls)
            return tuple(value.attrs.get(f, UNKNOWN) for f in fields)
        return value

    @staticmethod
    def _any_all(name: str, items: Sequence[Any]) -> Any:
        truths = [truth(v) for v in items]
        if name == "any":
            if True in truths:
                return True
            return UNKNOWN if UNKNOWN in truths else False
        if False in truths:
            return False
        return UNKNOWN if UNKNOWN in truths else True

    def _instantiate(
        self, cls: nodes.ClassDef, args: Sequence[Any], kwargs: Mapping[str, Any]
    ) -> Any:
        instance = InstanceRef(cls)
        # NamedTuple / dataclass style: annotated class fields, in order.
        fields = _annotated_fields(cls)
        for name, value in zip(fields, args, strict=False):
            instance.attrs[name] = value
        for name, value in kwargs.items():
            if name in fields:
                instance.attrs[name] = value
        return instance

    def _call_function(self, func: FunctionRef, args: list[Any], kwargs: dict[str, Any]) -> Any:
        node = func.node
        if isinstance(node, nodes.FunctionDef) and is_abstract_body(node):
            return self._by_convention(str(node.name)) if node.name else UNKNOWN
        key = _call_key(func, args, kwargs)
        memo = None if key is None else self._call_memo.get(key)
        if memo is not None:
            value, recorded = memo
            self.assumed |= recorded
            return value
        if id(node) in self._active or self._depth >= MAX_CALL_DEPTH:
            return UNKNOWN
        self._active.add(id(node))
        self._depth += 1
        try:
            with self.tracking() as used:
                env = self._bind_arguments(func, args, kwargs)
                if isinstance(node, nodes.Lambda):
                    result = self._eval(node.body, env)
                else:
                    result = self._run_body(node.body, env)
            if key is not None:
                self._call_memo.put(key, result, frozenset(used))
            return result
        finally:
            self._depth -= 1
            self._active.discard(id(node))

    def _bind_arguments(self, func: FunctionRef, args: list[Any], kwargs: dict[str, Any]) -> Env:
        arguments = func.node.args
        env: Env = {}
        positional = list(arguments.posonlyargs or []) + list(arguments.args or [])
        supplied = list(args)
        if func.receiver is not None and positional:
            supplied = [func.receiver, *supplied]
        defaults = list(arguments.defaults or [])
        first_default = len(positional) - len(defaults)
        for index, param in enumerate(positional):
            if index < len(supplied):
                env[param.name] = supplied[index]
            elif param.name in kwargs:
                env[param.name] = kwargs.pop(param.name)
            elif index >= first_default:
                env[param.name] = self._eval(defaults[index - first_default], None)
            else:
                env[param.name] = UNKNOWN
        kw_defaults = list(arguments.kw_defaults or [])
        for index, param in enumerate(arguments.kwonlyargs or []):
            if param.name in kwargs:
                env[param.name] = kwargs.pop(param.name)
            elif index < len(kw_defaults) and kw_defaults[index] is not None:
                env[param.name] = self._eval(kw_defaults[index], None)
            else:
                env[param.name] = UNKNOWN
        if arguments.vararg:
            env[arguments.vararg] = UNKNOWN
        if arguments.kwarg:
            env[arguments.kwarg] = UNKNOWN
        return env

    def can_complete(self, func: FunctionRef) -> bool:
        """Whether some path through the body returns instead of raising (a loader that
        raises unless the device is right only completes on the right generations)."""
        if not isinstance(func.node, nodes.FunctionDef):
            return True
        try:
            env = self._bind_arguments(func, [], {})
            returns, falls_through = self._exec_block(func.node.body, env)
        except RecursionError:
            return True
        return bool(returns) or falls_through

    # -- statements (function bodies) ----------------------------------------------------
    def _run_body(self, body: Sequence[nodes.NodeNG], env: Env) -> Any:
        returns, falls_through = self._exec_block(body, env)
        if falls_through:
            returns.append(None)
        if not returns:
            return UNKNOWN  # every path raises
        result = returns[0]
        for value in returns[1:]:
            result = join_optional(result, value)
        return result

    def _exec_block(self, body: Sequence[nodes.NodeNG], env: Env) -> tuple[list[Any], bool]:
        returns: list[Any] = []
        for stmt in body:
            if isinstance(stmt, nodes.Return):
                returns.append(None if stmt.value is None else self._eval(stmt.value, env))
                return returns, False
            if isinstance(stmt, nodes.Raise):
                return returns, False
            if isinstance(stmt, nodes.Assign):
                one_name = len(stmt.targets) == 1 and isinstance(stmt.targets[0], nodes.AssignName)
                if one_name and isinstance(stmt.value, nodes.Call):
                    value = self._call_node(stmt.value, env, optional=True)
                else:
                    value = self._eval(stmt.value, env)
                for target in stmt.targets:
                    _bind_target(target, value, env)
            elif isinstance(stmt, nodes.AnnAssign):
                if stmt.value is not None:
                    _bind_target(stmt.target, self._eval(stmt.value, env), env)
            elif isinstance(stmt, nodes.AugAssign):
                _bind_target(stmt.target, UNKNOWN, env)
            elif isinstance(stmt, nodes.If):
                narrowed = _narrowed(stmt.test, env)
                t = UNKNOWN if narrowed else truth(self._eval(stmt.test, env))
                if t is UNKNOWN:
                    then_env, else_env = narrowed or (dict(env), dict(env))
                    r1, f1 = self._exec_block(stmt.body, then_env)
                    r2, f2 = self._exec_block(stmt.orelse, else_env)
                    returns += r1 + r2
                    if not (f1 or f2):
                        return returns, False
                    _merge_into(env, [e for e, f in ((then_env, f1), (else_env, f2)) if f])
                else:
                    r, f = self._exec_block(stmt.body if t else stmt.orelse, env)
                    returns += r
                    if not f:
                        return returns, False
            elif isinstance(stmt, nodes.Assert):
                if truth(self._eval(stmt.test, env)) is False:
                    return returns, False
            elif isinstance(stmt, nodes.Try):
                returns_try, falls = self._exec_try(stmt, env)
                returns += returns_try
                if not falls:
                    return returns, False
            elif isinstance(stmt, (nodes.For, nodes.While, nodes.AsyncFor)):
                _forget_assigned(stmt, env)
                loop_env = dict(env)
                r, _ = self._exec_block(stmt.body, loop_env)
                returns += r
                r, f = self._exec_block(stmt.orelse, dict(env))
                returns += r
            elif isinstance(stmt, (nodes.With, nodes.AsyncWith)):
                for _ctx, target in stmt.items:
                    if target is not None:
                        _bind_target(target, UNKNOWN, env)
                r, f = self._exec_block(stmt.body, env)
                returns += r
                if not f:
                    return returns, False
            elif isinstance(stmt, nodes.FunctionDef):
                env[stmt.name] = FunctionRef(stmt)
            elif isinstance(stmt, nodes.ClassDef):
                env[stmt.name] = ClassRef(stmt)
            elif isinstance(stmt, (nodes.Import, nodes.ImportFrom)):
                for name, alias in stmt.names:
                    local = alias or str(name).split(".")[0]
                    if local != "*":
                        env[local] = self._module_binding(stmt, local)
            elif isinstance(stmt, nodes.Match):
                _forget_assigned(stmt, env)
                for case in stmt.cases:
                    r, _ = self._exec_block(case.body, dict(env))
                    returns += r
        return returns, True

    def _exec_try(self, stmt: nodes.Try, env: Env) -> tuple[list[Any], bool]:
        try_env = dict(env)
        returns, falls = self._exec_block(stmt.body, try_env)
        exits: list[Env] = []
        if falls:
            r, f = self._exec_block(stmt.orelse, try_env)
            returns += r
            if f:
                exits.append(try_env)
        for handler in stmt.handlers:
            handler_env = dict(env)
            _forget_assigned_in(stmt.body, handler_env)
            if handler.name is not None:
                _bind_target(handler.name, UNKNOWN, handler_env)
            r, f = self._exec_block(handler.body, handler_env)
            returns += r
            if f:
                exits.append(handler_env)
        if exits:
            _merge_into(env, exits)
        r, f = self._exec_block(stmt.finalbody, env)
        returns += r
        return returns, bool(exits) and f


# -- helpers ---------------------------------------------------------------------------


def _under_type_checking(node: nodes.NodeNG) -> bool:
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, (nodes.Module, nodes.FunctionDef)):
        if (
            isinstance(parent, nodes.If)
            and child in parent.body
            and parent.test.as_string().endswith("TYPE_CHECKING")
        ):
            return True
        child, parent = parent, parent.parent
    return False


def _annotated_fields(cls: nodes.ClassDef) -> list[str]:
    return [
        stmt.target.name
        for stmt in cls.body
        if isinstance(stmt, nodes.AnnAssign) and isinstance(stmt.target, nodes.AssignName)
    ]


def _all_known_keys(mapping: dict[Any, Any]) -> bool:
    return not any(_contains_unknown(k) for k in mapping)


def _index_path(value: Any, path: Sequence[int]) -> Any:
    for index in path:
        if value is UNKNOWN:
            return UNKNOWN
        try:
            value = value[index]
        except Exception:
            return UNKNOWN
    return value


def _bind_target(target: nodes.NodeNG, value: Any, env: Env) -> None:
    if isinstance(target, nodes.AssignName):
        env[target.name] = value
    elif isinstance(target, (nodes.Tuple, nodes.List)):
        for index, element in enumerate(target.elts):
            if isinstance(element, nodes.Starred):
                _bind_target(element.value, UNKNOWN, env)
                continue
            _bind_target(element, _index_path(value, [index]), env)


def _forget_assigned(stmt: nodes.NodeNG, env: Env) -> None:
    for name_node in stmt.nodes_of_class(nodes.AssignName):
        env[name_node.name] = UNKNOWN


def _forget_assigned_in(body: Sequence[nodes.NodeNG], env: Env) -> None:
    for stmt in body:
        _forget_assigned(stmt, env)


def _merge_into(env: Env, branches: Sequence[Env]) -> None:
    keys = set().union(*branches) if branches else set()
    for key in keys:
        values = [b.get(key, UNKNOWN) for b in branches]
        merged = values[0]
        for v in values[1:]:
            merged = join_optional(merged, v)
        env[key] = merged


def _narrowed(test: nodes.NodeNG, env: Env) -> tuple[Env, Env] | None:
    """`if x is not None:` (`is None`, `x`, `not x`) on a local holding NoneOr: the
    branch where x is its value and the branch where it is None, as two environments."""
    negate = False
    if isinstance(test, nodes.UnaryOp) and test.op == "not":
        test, negate = test.operand, True
    by_truth = True
    if isinstance(test, nodes.Compare) and len(test.ops) == 1:
        op, right = test.ops[0]
        if op not in ("is", "is not") or not (
            isinstance(right, nodes.Const) and right.value is None
        ):
            return None
        negate ^= op == "is"
        test, by_truth = test.left, False
    held = env.get(test.name) if isinstance(test, nodes.Name) else None
    if not isinstance(held, NoneOr):
        return None
    if by_truth and truth(held.value) is not True:
        return None  # a falsy value (0, "") takes the None branch too
    present, absent = dict(env), dict(env)
    present[test.name], absent[test.name] = held.value, None
    return (absent, present) if negate else (present, absent)


def _is_partial(func: ExternalRef) -> bool:
    return func.dotted in _FUNCTOOLS_PARTIAL or func.dotted.endswith(".partial")


def _setattr_calls(cls: nodes.ClassDef) -> dict[str, list[nodes.NodeNG]] | None:
    found: dict[str, list[nodes.NodeNG]] = {}
    for method in cls.mymethods():
        params = [*(method.args.posonlyargs or ()), *(method.args.args or ())]
        if not params:
            continue
        receiver = params[0].name
        for call in method.nodes_of_class(nodes.Call):
            args = call.args
            if not _is_setattr(call.func) or len(args) != 3:
                continue
            if not (isinstance(args[0], nodes.Name) and args[0].name == receiver):
                continue
            if not (isinstance(args[1], nodes.Const) and isinstance(args[1].value, str)):
                return None
            found.setdefault(args[1].value, []).append(args[2])
    return found


def _is_setattr(func: nodes.NodeNG) -> bool:
    """`setattr` or `object.__setattr__`."""
    if isinstance(func, nodes.Name):
        return func.name == "setattr"
    return (
        isinstance(func, nodes.Attribute)
        and func.attrname == "__setattr__"
        and isinstance(func.expr, nodes.Name)
        and func.expr.name == "object"
    )


# Bases that define no attributes of an instance's own (for the __getattr__ fallback).
_PLAIN_BASES = {"abc.ABC", "typing.Generic"}


def _plain_base(value: Any) -> bool:
    if isinstance(value, Builtin):
        return value.name == "object"
    return isinstance(value, ExternalRef) and value.dotted in _PLAIN_BASES


def _is_cache_decorator(func: ExternalRef) -> bool:
    return func.last in _CACHE_DECORATORS and func.dotted.startswith(("functools", func.last))


def _reads_arguments(func: ExternalRef) -> bool:
    """Whether _call_external looks at the arguments: only to wrap a function (an
    intrinsic's dotted name is never one of these)."""
    return _is_partial(func) or _is_cache_decorator(func)


def _syntactic_name(node: nodes.NodeNG) -> str | None:
    if isinstance(node, nodes.Name):
        return str(node.name)
    if isinstance(node, nodes.Attribute):
        return str(node.attrname)
    return None


def _is_callable_value(value: Any) -> bool:
    return isinstance(value, (FunctionRef, PartialRef, ExternalRef, ClassRef))


def _call_key(
    func: FunctionRef, args: Sequence[Any], kwargs: Mapping[str, Any]
) -> tuple[Any, ...] | None:
    try:
        key = (
            id(func.node),
            _freeze(func.receiver),
            tuple(_freeze(a) for a in args),
            tuple(sorted((k, _freeze(v)) for k, v in kwargs.items())),
        )
        hash(key)
        return key
    except TypeError:
        return None


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return ("list", tuple(_freeze(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((repr(k), _freeze(v)) for k, v in value.items())))
    if isinstance(value, (set, frozenset)):
        return ("set", frozenset(value))
    if isinstance(value, InstanceRef):
        return ("instance", id(value))
    if isinstance(value, tuple):
        return tuple(_freeze(v) for v in value)
    return value


_BUILTINS: dict[str, Any] = {
    name: Builtin(name)
    for name in (
        "tuple",
        "list",
        "int",
        "str",
        "float",
        "bool",
        "len",
        "min",
        "max",
        "any",
        "all",
        "map",
        "sorted",
        "set",
        "frozenset",
        "abs",
        "round",
        "isinstance",
        "dict",
        "getattr",
        "hasattr",
        "setattr",
        "object",
    )
}
# Attributes every torch build has (the rest, like torch.xpu or torch.hpu, depend on it).
_PLAIN_ENUMS = {"enum.Enum"}
# Longest known sequence a comprehension is evaluated over (arch lists are short).
_MAX_COMPREHENSION = 256
_CLASS_NAME = re.compile(r"^[ \t]*class[ \t]+(\w+)", re.MULTILINE)
_ALWAYS_PRESENT = {("torch", "cuda"), ("torch", "version"), ("torch", "backends")}

_BUILTIN_TYPES: dict[str, type] = {
    "tuple": tuple,
    "list": list,
    "int": int,
    "str": str,
    "float": float,
    "bool": bool,
    "dict": dict,
    "set": set,
    "frozenset": frozenset,
}
_BUILTIN_IMPLS: dict[str, Callable[..., Any]] = {
    "tuple": tuple,
    "list": list,
    "int": int,
    "str": str,
    "float": float,
    "bool": bool,
    "len": len,
    "min": min,
    "max": max,
    "any": any,
    "all": all,
    "sorted": sorted,
    "set": set,
    "frozenset": frozenset,
    "abs": abs,
    "round": round,
}
