"""The class model: method resolution order, class and instance attributes, properties,
enum members, NamedTuple fields and the `__getattr__` fallback."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import chain
from typing import TYPE_CHECKING, Any

from astroid import nodes
from astroid.const import Context

from gatecheck.loading.lazy import Spelling
from gatecheck.loading.resolve import decorator_names
from gatecheck.semantics import class_writes, dataclass_init, flow, instance_classes
from gatecheck.semantics.env import annotated_fields
from gatecheck.semantics.lazy_joins import until_unknown
from gatecheck.semantics.logic import either, join_all
from gatecheck.semantics.values import (
    UNKNOWN,
    Builtin,
    ClassRef,
    EnumMember,
    ExternalRef,
    FunctionRef,
    InstanceRef,
    RecordCopy,
    contains_unknown,
    is_constant,
)

if TYPE_CHECKING:
    from gatecheck.semantics.evaluator import Evaluator

# Bases that define no attributes of an instance's own (for the __getattr__ fallback).
_PLAIN_BASES = {"abc.ABC", "typing.Generic"}
_PLAIN_ENUMS = {"enum.Enum"}
_ENUMS = {"enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag", "enum.IntFlag"}
# The builtin types an Enum mixes in so that its members are values of that type.
_DATA_TYPES = frozenset({"str", "int", "float", "bytes"})


def mro(
    ev: Evaluator, cls: nodes.ClassDef, _seen: frozenset[int] = frozenset()
) -> Iterator[nodes.ClassDef]:
    """The class, then each base's order in turn, each class once. Lazy: a lookup
    that the class itself answers never resolves its bases (nor builds the modules
    they come from)."""
    if id(cls) in _seen:
        return
    yielded: set[int] = {id(cls)}
    yield cls
    for base in cls.bases:
        value = ev.eval(base, None)
        if isinstance(value, ClassRef):
            for klass in mro(ev, value.node, _seen | {id(cls)}):
                if id(klass) not in yielded:
                    yielded.add(id(klass))
                    yield klass


def class_attribute(
    ev: Evaluator,
    cls: nodes.ClassDef,
    name: str,
    receiver: Any,
    fallback: bool = True,
    after: nodes.ClassDef | None = None,
    reader: nodes.NodeNG | None = None,
) -> Any:
    """`fallback`: ask `__getattr__` when the lookup fails (not for
    `object.__getattribute__`). `after`: look in the classes that come after it in the
    order only, and not on the instance (`super().name` in a method of `after`).
    `reader`: the expression reading an instance's attribute: read in the method that
    sets it, before (or in the test of an `if` holding) a later assignment, it is not
    the value the method leaves (`self.fast = cfg.fast`, then `if self.fast and not ok:
    self.fast = False`: the test reads cfg.fast; read as the value left, its own veto
    made it false where `ok` is, and the test admitted nothing)."""
    order: Iterable[nodes.ClassDef] = mro(ev, cls)
    if after is not None:
        classes = list(order)
        start = next((i for i, k in enumerate(classes) if k is after), None)
        if start is None:
            return UNKNOWN
        order = classes[start + 1 :]
    for klass in order:
        bound = klass.locals.get(name)
        if not bound:
            continue
        node = bound[-1]
        if isinstance(receiver, ClassRef) and is_enum(ev, klass):
            member = enum_member(klass, name)
            if member is not None:
                return member
        if (
            isinstance(receiver, InstanceRef)
            and not receiver.defaults_hold
            and isinstance(node.parent, nodes.AnnAssign)
        ):
            # A @dataclass's field: what the constructions pass (dataclass_init.py).
            return dataclass_init.field_value(ev, receiver.cls, name)
        if (
            isinstance(receiver, InstanceRef)
            and not isinstance(node, (nodes.FunctionDef, nodes.ClassDef))
            and (not receiver.defaults_hold or instance_assigns(ev, receiver.cls, name))
        ):
            # A class-level value read through an instance is only a default (dataclass
            # fields, config objects): the instance may hold anything. Unless it was
            # made without arguments and no method assigns it on the instance.
            return _tagged(ev, cls, name, receiver, reader)
        if isinstance(node, nodes.FunctionDef):
            return _method(ev, node, klass, cls, receiver)
        if isinstance(receiver, InstanceRef) and isinstance(node.parent, nodes.AnnAssign):
            # A field's default, `field(default=...)`'s where the annotation is one.
            default = dataclass_init.field_default(ev, node.parent)
            if default is not dataclass_init.NO_FIELD_CALL:
                return default
        value = ev.binding_value(node)
        if isinstance(node, nodes.ClassDef):
            return value
        if not class_writes.is_flag(value):
            return value
        outside = class_writes.writes(ev, klass, name)
        if not outside:
            return value
        # Given another value from outside the body (`Utils.is_installed = True`).
        written = (class_writes.value_of(ev, w) for w in outside)
        return either(until_unknown(ev, chain((value,), written)))
    if after is None and isinstance(receiver, InstanceRef):
        assigned: list[nodes.NodeNG] = []
        on_self: list[nodes.NodeNG] = []
        overridden = False  # a class before sets it in `__init__` after the bases' run
        for klass in mro(ev, cls):
            by_name = set_on_self(ev, klass)
            if by_name is None:
                return UNKNOWN  # a name set only known at runtime may be this one
            own = klass.instance_attrs.get(name, ())
            if overridden:
                own = [a for a in own if not _in_init(a, klass)]
            assigned.extend(own)
            on_self.extend(by_name.get(name, ()))
            overridden = overridden or name in _set_last_in_init(ev, klass)
        if assigned or on_self:
            flowed = None if on_self else flow.value_after(ev, assigned, reader)
            if flowed is None:
                values = chain(
                    (ev.binding_value(a) for a in assigned),
                    # Memoized with the bindings (a cycle back reads as unknown): a
                    # base's `register_buffer("w", f(self.v))` may lead back here.
                    (ev.memoized(id(v), _value_set, v) for v in on_self),
                )
                flowed = join_all(until_unknown(ev, values))
            # else `self.use_x = False` then `if cap >= ...: self.use_x = True`
            return _also_set_elsewhere(ev, cls, name, flowed, assigned)
        tagged = _tagged(ev, cls, name, receiver, reader)
        if tagged is not UNKNOWN or not fallback:
            return tagged
        return _getattr_hook(ev, cls, name, receiver)
    return UNKNOWN


def _tagged(
    ev: Evaluator,
    cls: nodes.ClassDef,
    name: str,
    receiver: InstanceRef,
    reader: nodes.NodeNG | None,
) -> Any:
    """`self.arch` in a method of a family whose classes each set their own at class
    level, the class chosen by the device where one is made (instance_classes.py);
    UNKNOWN otherwise."""
    if reader is None or receiver.defaults_hold:
        return UNKNOWN
    tagged = instance_classes.tag_value(ev, cls, name, reader)
    return UNKNOWN if tagged is None else tagged


def _value_set(ev: Evaluator, value: nodes.NodeNG) -> Any:
    return ev.eval(value, None)


def _in_init(node: nodes.NodeNG, klass: nodes.ClassDef) -> bool:
    scope = node.scope()
    return (
        isinstance(scope, nodes.FunctionDef) and scope.name == "__init__" and scope.parent is klass
    )


def _set_last_in_init(ev: Evaluator, klass: nodes.ClassDef) -> frozenset[str]:
    """The names the class's `__init__` sets on `self` in its own body (not under an
    `if`) after the last call of a base's `__init__` (`super().__init__()`): what the
    bases' `__init__` gave them is gone when it returns (sglang's MoE scheme subclasses
    decide `self.use_flashinfer_trtllm` anew after the base's). Once per class."""
    key = ("set-last-in-init", id(klass))
    found: frozenset[str] | None = ev.facts.get(key)
    if found is None:
        found = ev.facts[key] = _names_set_last(klass)
    return found


def _names_set_last(klass: nodes.ClassDef) -> frozenset[str]:
    bound = klass.locals.get("__init__")
    init = bound[-1] if bound else None
    if not isinstance(init, nodes.FunctionDef) or not init.args.args:
        return frozenset()
    receiver = init.args.args[0].name
    names: set[str] = set()
    for statement in init.body:
        if any(
            isinstance(call.func, nodes.Attribute) and call.func.attrname == "__init__"
            for call in statement.nodes_of_class(nodes.Call)
        ):
            names.clear()  # a base's `__init__` runs after what came before
        if isinstance(statement, (nodes.Assign, nodes.AnnAssign)):
            targets = (
                statement.targets if isinstance(statement, nodes.Assign) else [statement.target]
            )
            names.update(
                t.attrname
                for t in targets
                if isinstance(t, nodes.AssignAttr) and _is_name(t.expr, receiver)
            )
    return frozenset(names)


def _also_set_elsewhere(
    ev: Evaluator, cls: nodes.ClassDef, name: str, value: Any, own: list[nodes.NodeNG]
) -> Any:
    """A flag or slot the class's methods set (`self.w = None` in a release method) is
    also what code outside them gives it: a subclass's `__init__`, a loader's `layer.w =
    t`, `setattr(layer, "w", t)` (class_writes.instance_writes). Only for flags, as for
    class attributes (class_writes.is_flag), that the class declares as such (some
    method assigns it None, True or False as it is spelled: a computed value that is
    None on some generations, `self.mode = self._select_mode()`, is not a slot): a None
    read alone made `if self.w is None: return False` false everywhere."""
    if value is UNKNOWN or not class_writes.is_flag(value):
        return value
    if not class_writes.declares_flag(own):
        return value
    # Memoized: a write's value may read the attribute again (`layer.w = layer.w.to(d)`),
    # a cycle, read as unknown.
    key = ("instance-written", id(cls), name)
    found = ev.memoized(key, _written_values, (cls, name, frozenset(id(n) for n in own)))
    if found is UNKNOWN:
        return UNKNOWN
    written_at_all, written = found
    if not written_at_all:
        return value
    return UNKNOWN if written is UNKNOWN else either(until_unknown(ev, (value, written)))


def _written_values(
    ev: Evaluator, asked: tuple[nodes.ClassDef, str, frozenset[int]]
) -> tuple[bool, Any]:
    """(whether the project gives the attribute values outside the class, the value of
    one of them); the writes read until one is unknown (class_writes.instance_writes)."""
    outside = class_writes.instance_writes(ev, *asked)
    first = next(outside, _NOT_WRITTEN)
    if first is _NOT_WRITTEN:
        return False, None
    values = (class_writes.value_of(ev, w) for w in chain((first,), outside))
    return True, either(until_unknown(ev, values))


def _method(
    ev: Evaluator,
    node: nodes.FunctionDef,
    klass: nodes.ClassDef,
    cls: nodes.ClassDef,
    receiver: Any,
) -> Any:
    decorators = decorator_names(node)
    if "staticmethod" in decorators:
        return FunctionRef(node, None, klass)
    if "classmethod" in decorators:
        owner = receiver if isinstance(receiver, ClassRef) else ClassRef(cls)
        return FunctionRef(node, owner, klass)
    if isinstance(receiver, InstanceRef):
        method = FunctionRef(node, receiver, klass)
        if "property" in decorators or "cached_property" in decorators:
            return ev.invoke(method, [], {})
        return method
    return FunctionRef(node, None, klass)


def set_on_self(ev: Evaluator, cls: nodes.ClassDef) -> dict[str, list[nodes.NodeNG]] | None:
    """Values a method gives the instance through `object.__setattr__(self, "x", v)`
    or `setattr(self, "x", v)`, by name; None when a name is only known at runtime.
    Once per class for all generations (the facts are Semantics')."""
    key = ("set_on_self", id(cls))
    if key not in ev.facts:
        ev.facts[key] = _setattr_calls(cls)
    found: dict[str, list[nodes.NodeNG]] | None = ev.facts[key]
    return found


def _getattr_hook(ev: Evaluator, cls: nodes.ClassDef, name: str, receiver: InstanceRef) -> Any:
    """The normal lookup failed: Python asks the class's `__getattr__` (a table of
    facts answered by predicate calls). Only when every class on the way is known and
    none sets attributes on the instance under names known only at runtime: else
    the lookup may not have failed at all."""
    if name.startswith("__") and name.endswith("__"):
        return UNKNOWN
    hook: tuple[nodes.FunctionDef, nodes.ClassDef] | None = None
    for klass in mro(ev, cls):
        if set_on_self(ev, klass) is None:
            return UNKNOWN
        for base in klass.bases:
            value = ev.eval(base, None)
            known_base = isinstance(value, ClassRef) or (
                isinstance(value, (Builtin, ExternalRef)) and plain_base(value)
            )
            if not known_base:
                return UNKNOWN
        bound = klass.locals.get("__getattr__")
        if hook is None and bound and isinstance(bound[-1], nodes.FunctionDef):
            hook = (bound[-1], klass)
    if hook is None:
        return UNKNOWN
    return ev.invoke(FunctionRef(hook[0], receiver, hook[1]), [name], {})


def instance_assigns(ev: Evaluator, cls: nodes.ClassDef, name: str) -> bool:
    return any(name in klass.instance_attrs for klass in mro(ev, cls))


def is_enum(ev: Evaluator, cls: nodes.ClassDef) -> bool:
    """A subclass of enum.Enum whose members are no values of a builtin type (IntEnum,
    StrEnum and an Enum mixing in `str` or `int`, sglang's `class DeviceType(str, Enum)`,
    have members that compare equal to their values, so their values are read as they
    are; `DeviceType.CUDA == "cuda"` is true)."""
    return _enum_kind(ev, cls) == _PLAIN


# _enum_kind's answers: members read as members; members read as their values.
_PLAIN, _VALUED = "plain", "valued"


def _enum_kind(ev: Evaluator, cls: nodes.ClassDef) -> str | None:
    """How `cls`'s members are read where it derives from an enum (None where not):
    _PLAIN for an enum.Enum mixing in no builtin type, else _VALUED."""
    enum = plain = valued = False
    for klass in mro(ev, cls):
        for base in klass.bases:
            value = ev.eval(base, None)
            if isinstance(value, ExternalRef) and value.dotted in _ENUMS:
                enum = True
                plain = plain or value.dotted in _PLAIN_ENUMS
            elif isinstance(value, Builtin) and value.name in _DATA_TYPES:
                valued = True
    if not enum:
        return None
    return _PLAIN if plain and not valued else _VALUED


def derives_from_enum(ev: Evaluator, cls: nodes.ClassDef) -> bool:
    """Whether `cls` is an enum of any kind (its instances are its members)."""
    return _enum_kind(ev, cls) is not None


def enum_call(ev: Evaluator, cls: nodes.ClassDef, args: Sequence[Any]) -> Any:
    """`DeviceType(value)` of a class deriving from an enum: the member whose value it is
    (as its members are read: the value itself where they compare equal to their
    values); NO_MEMBER where no member has that value (Python raises ValueError);
    NOT_AN_ENUM_CALL where `cls` derives from no enum or the call is another."""
    kind = _enum_kind(ev, cls) if len(args) == 1 else None
    if kind is None:
        return NOT_AN_ENUM_CALL
    wanted = args[0]
    if not is_constant(wanted) or contains_unknown(wanted):
        return UNKNOWN
    plain = kind == _PLAIN
    unread = False
    for name, node in _member_lines(cls):
        value = ev.eval(node, None)
        if not is_constant(value):
            unread = True
        elif type(value) is type(wanted) and value == wanted:
            return enum_member(cls, name) if plain else value
    return UNKNOWN if unread else NO_MEMBER


# enum_call's answers besides a member: none has the value; not an enum's call.
NO_MEMBER = object()
NOT_AN_ENUM_CALL = object()


def enum_member(cls: nodes.ClassDef, name: str) -> EnumMember | None:
    """`Color.RED`: the member (an alias, a later name with an earlier member's known
    value, is that member); None for methods and names that are not members."""
    values: dict[Any, str] = {}
    for member, node in _member_lines(cls):
        value = node.value if isinstance(node, nodes.Const) else UNKNOWN
        canonical = member
        if value is not UNKNOWN and isinstance(value, (int, str, float, bool, bytes)):
            canonical = values.setdefault(value, member)
        if member == name:
            return EnumMember(cls, canonical)
    return None


def _member_lines(cls: nodes.ClassDef) -> Iterator[tuple[str, nodes.NodeNG]]:
    """Each `NAME = value` line of an enum's body that makes a member, in order (the
    name, the value's expression)."""
    for stmt in cls.body:
        if not isinstance(stmt, nodes.Assign) or len(stmt.targets) != 1:
            continue
        target = stmt.targets[0]
        if isinstance(target, nodes.AssignName) and not target.name.startswith("_"):
            yield str(target.name), stmt.value


def enum_value(ev: Evaluator, member: EnumMember) -> Any:
    """`member.value`: the value its class body assigns it (`auto()` and other calls
    from outside the project are unknown)."""
    for stmt in member.cls.body:
        if not isinstance(stmt, nodes.Assign) or len(stmt.targets) != 1:
            continue
        target = stmt.targets[0]
        if isinstance(target, nodes.AssignName) and target.name == member.name:
            return ev.eval(stmt.value, None)
    return UNKNOWN


def is_namedtuple(ev: Evaluator, cls: nodes.ClassDef) -> bool:
    for klass in mro(ev, cls):
        for base in klass.bases:
            name = base.as_string()
            if name.endswith("NamedTuple") or name.endswith("namedtuple"):
                return True
    return False


def record_copy(ev: Evaluator, receiver: InstanceRef) -> RecordCopy | None:
    """`record._replace` where `record` is a NamedTuple instance whose classes do not
    define `_replace` themselves; else None."""
    if not is_namedtuple(ev, receiver.cls):
        return None
    if any("_replace" in klass.locals for klass in mro(ev, receiver.cls)):
        return None
    return RecordCopy(receiver)


def replaced(copy: RecordCopy, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    """What `record._replace(**changes)` returns: a new instance with the fields it names
    changed, the others as they were; unknown for a positional argument or a name that
    is no field (Python raises)."""
    instance = copy.instance
    if args or not set(kwargs) <= set(annotated_fields(instance.cls)):
        return UNKNOWN
    return InstanceRef(instance.cls, {**instance.attrs, **kwargs}, instance.defaults_hold)


def as_tuple(ev: Evaluator, value: Any) -> Any:
    """NamedTuple instances compare as tuples of their fields."""
    if isinstance(value, InstanceRef) and is_namedtuple(ev, value.cls):
        fields = annotated_fields(value.cls)
        return tuple(value.attrs.get(f, UNKNOWN) for f in fields)
    return value


def instantiate(
    cls: nodes.ClassDef,
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    defaults_hold: bool = False,
) -> Any:
    """`defaults_hold`: made by a call passing nothing (`KernHopper()`), so what its
    classes bind holds for it, unless some method assigns that attribute on the
    instance (values.InstanceRef): quack's kernels are chosen by a table of classes,
    each binding `arch = 90`/`100`/`120`, and tested as `gemm.arch == 90`."""
    instance = InstanceRef(cls, defaults_hold=defaults_hold)
    # NamedTuple / dataclass style: annotated class fields, in order.
    fields = annotated_fields(cls)
    for name, value in zip(fields, args, strict=False):
        instance.attrs[name] = value
    for name, value in kwargs.items():
        if name in fields:
            instance.attrs[name] = value
    return instance


# No write found (a write's node may be None: a value not passed by place).
_NOT_WRITTEN = object()


# Words a method spells when it sets attributes of its instance by a name held in a
# string: `setattr`, `object.__setattr__`, torch's `register_buffer`/`register_parameter`,
# a write through `self.__dict__` or `vars(self)`.
_SETTING_WORDS = ("setattr", "register_buffer", "register_parameter", "__dict__", "vars")
# torch.nn.Module's methods that bind `self.<name>` to their second argument.
_REGISTERING = frozenset({"register_buffer", "register_parameter"})


def _setattr_calls(cls: nodes.ClassDef) -> dict[str, list[nodes.NodeNG]] | None:
    """The values each method of `cls` gives its instance by a name in a string: the
    name's own `self.w = None` (a release method) is not all it holds when
    `self.register_buffer("w", t)` made it (GPTQ-style quantized linears free their
    buffers so; read as None alone, `if self.w is None: return False` made the fused
    ROCm path false everywhere). None when some name is known only at runtime
    (`setattr(self, name, v)`, `self.__dict__.update(kw)`, `vars(self)[k] = v`)."""
    found: dict[str, list[nodes.NodeNG]] = {}
    spells = Spelling(cls.root()).spelling_any(_SETTING_WORDS)
    for method in cls.mymethods():
        params = [*(method.args.posonlyargs or ()), *(method.args.args or ())]
        if not params:
            continue
        receiver = params[0].name
        if spells is not None and not spells(method):  # both spellings hold it
            continue
        for node in method.nodes_of_class((nodes.Call, nodes.Attribute)):
            if isinstance(node, nodes.Attribute):
                if node.attrname == "__dict__" and _is_name(node.expr, receiver):
                    written = _dict_write(node)
                    if written is None:
                        return None
                    for key, value in written:
                        found.setdefault(key, []).append(value)
                continue
            set_by = set_by_name(node)
            if set_by is None or not _is_name(set_by[0], receiver):
                continue
            _, name, value = set_by
            names = None if name is None else _constant_strings(name)
            if names is None or value is None:
                return None
            for each in names:
                found.setdefault(each, []).append(value)
    return found


def set_by_name(
    call: nodes.Call,
) -> tuple[nodes.NodeNG, nodes.NodeNG | None, nodes.NodeNG | None] | None:
    """(object, name, value) of a call that sets an attribute of the object by a string
    (`setattr(o, "w", v)`, `o.register_buffer("w", t)`; name or value None when not
    passed by place, `vars(o)` neither), or None for any other call."""
    func, args = call.func, call.args
    if _is_setattr(func) or (isinstance(func, nodes.Name) and func.name == "vars"):
        if not args:
            return None
        if isinstance(func, nodes.Name) and func.name == "vars":
            return (args[0], None, None)
        return (args[0], args[1] if len(args) > 1 else None, args[2] if len(args) > 2 else None)
    if isinstance(func, nodes.Attribute) and func.attrname in _REGISTERING:
        return (func.expr, args[0] if args else None, args[1] if len(args) > 1 else None)
    return None


# `self.__dict__` methods that read it or take a name out (the lookup then goes on to
# the class, whose attribute is read as before).
_DICT_READS = frozenset({"get", "keys", "values", "items", "copy", "pop", "__contains__"})


def _dict_write(node: nodes.Attribute) -> list[tuple[str, nodes.NodeNG]] | None:
    """What a use of `self.__dict__` writes, by name: nothing for a read
    (`self.__dict__.get(key)`), the value of `self.__dict__[key] = v` under each name
    `key` may be (a constant, or a local bound only to constants: sglang's memo of a
    flag under one of two names); None for a write by a runtime name (`update`,
    `setdefault`, an unknown key) or a use not read here."""
    parent = node.parent
    if isinstance(parent, nodes.Attribute) and parent.expr is node:
        return [] if parent.attrname in _DICT_READS else None
    if isinstance(parent, nodes.Compare):
        return []
    if not (isinstance(parent, nodes.Subscript) and parent.value is node):
        return None
    if parent.ctx == Context.Load:
        return []
    keys = _constant_strings(parent.slice)
    statement = parent.parent
    if keys is None or not (isinstance(statement, nodes.Assign) and statement.targets == [parent]):
        return None
    return [(key, statement.value) for key in keys]


def _constant_strings(node: nodes.NodeNG) -> list[str] | None:
    """The strings `node` may be: a constant, a conditional expression of them, or a
    local of its function bound only to such expressions or as a loop's target over a
    tuple or list of them; None otherwise."""
    if isinstance(node, nodes.Const):
        return [node.value] if isinstance(node.value, str) else None
    if isinstance(node, nodes.IfExp):
        body, orelse = _constant_strings(node.body), _constant_strings(node.orelse)
        return None if body is None or orelse is None else body + orelse
    if not isinstance(node, nodes.Name):
        return None
    function = node.scope()
    if not isinstance(function, nodes.FunctionDef):
        return None
    out: list[str] = []
    try:  # the bindings that reach it, as every name is resolved (resolve.looked_up)
        scope, reaching = node.lookup(node.name)
    except Exception:
        return None
    if scope is not function:
        return None
    for bound in reaching:
        if not isinstance(bound, nodes.AssignName):
            return None
        statement = bound.parent
        if isinstance(statement, nodes.For) and statement.target is bound:
            # `for name in ("weight_schema", "input_schema"): setattr(self, name, ...)`
            items = statement.iter
            if not isinstance(items, (nodes.Tuple, nodes.List)):
                return None
            found: list[str] | None = [] if items.elts else None
            for item in items.elts:
                each = _constant_strings(item)
                if each is None or found is None:
                    found = None
                    break
                found.extend(each)
        elif isinstance(statement, nodes.Assign) and statement.targets == [bound]:
            found = _constant_strings(statement.value)
        else:
            return None
        if found is None:
            return None
        out.extend(found)
    if any(a.name == node.name for a in function.args.arguments or ()):
        return None
    return out or None


def _is_name(node: nodes.NodeNG, name: str) -> bool:
    return isinstance(node, nodes.Name) and node.name == name


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


def plain_base(value: Any) -> bool:
    """`object`, or a base that gives an instance no attributes of its own."""
    if isinstance(value, Builtin):
        return value.name == "object"
    return isinstance(value, ExternalRef) and value.dotted in _PLAIN_BASES
