"""A parameter read where no call bound it (a condition inside the function), given the
value every caller in the project passes: `def _pick(sm_major): if sm_major in [10, 11]`
with each call `_pick(get_device_capability()[0])` reads the device's major; a parameter
no caller passes (`_compute_capability=None`) is its default.

A bounded search, never a guess: the function's own module and the files that spell its
name before `(` and can import it (call_names.may_reach: a file calling its own function
of that name is not read), at most MAX_CALLER_FILES of them (a @dataclass's
constructions, at most MAX_CONSTRUCTION_FILES; a method's, the files spelling `x.name(`,
at most MAX_METHOD_CALLER_FILES); every call spelled with that name
must resolve to the function (an unresolved `x.name(...)` may be a caller), pass the
parameter plainly (no `*args`/`**kwargs`), and give a known value. Otherwise the search
answers nothing and the naming convention (conventions.py) is asked, marked assumed;
but where the callers that can be read all pass a value read from the device (a number
or a pair: `arch = major * 10 + minor`) to a parameter named for it and the rest cannot
be read (a public method passing its own parameter on, whose callers are the package's
users), the parameter is taken to be what those pass, marked assumed too
(DeviceFromSomeCallers).

Values that agree are that value. Values that differ meet as one of them (values.OneOf,
logic.either): inside the function the parameter is what some caller passed, so a
checker called with `min_major=8` for one kernel and `min_major=9` for another makes
`major < min_major` true below 9 only. That holds when they are all constants (None
among them) or all references (classes, instances, functions), at most MAX_OPTIONS of
them; else the parameter is unknown. Callers leaving a None default beside callers
that all pass one value give None or that value (values.NoneOr). A comprehension of
each device's capability (values.EachDevice: `[get_device_capability(i) for i in
range(device_count())]`) is a value too, its every item the device's. A constructor's
callers give the parameter its value, and so the field `__init__` stores it in (`cc <
self.min_cc`, with `Cap(min_cc=(9, 0))` and `Cap(min_cc=(10, 0))` built, is true
below 10.0 only); a @dataclass's field takes the same from its constructions, by the
`__init__` the decorator writes (dataclass_init.py, field_from_constructions).

A method's callers (other than a constructor's, `__init__` called through its class) are
the calls spelled `x.name(...)` that may reach it: those that resolve to it or to the
method it overrides (`self.check(cc)` in the base runs the subclass's `check`), and those
whose callee is unknown (`kernel.is_supported(cc)`, `kernel` a parameter) where the call
fits its signature. vLLM chooses its linear kernels by `kernel.is_supported(cc)` over a
list of classes, each `is_supported(cls, compute_capability=None)` testing the number
it is given. A call in the function that passes its own parameter on unchanged adds no
value and is left out (`cls.base_type.is_supported(compute_capability)` inside an
`is_supported` would otherwise read the parameter through itself, a cycle)."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from astroid import nodes

from gatecheck.loading.lazy import spelled_nodes
from gatecheck.loading.readlog import CALLS
from gatecheck.loading.resolve import decorator_names
from gatecheck.semantics import classes
from gatecheck.semantics.call_names import (
    MAX_CALLER_FILES,
    MAX_CONSTRUCTION_FILES,
    MAX_METHOD_CALLER_FILES,
    ImportShape,
    attribute_called_name_set,
    call_arguments,
    called_name_set,
    import_shape,
    may_reach,
    reaching_words_in,
    spelled_words,
)
from gatecheck.semantics.env import Env, bind_target, loop_target
from gatecheck.semantics.lazy_joins import unknown_anyway
from gatecheck.semantics.logic import REFERENCES, either, join_optional
from gatecheck.semantics.reads import remembered
from gatecheck.semantics.spread_keywords import spread_names
from gatecheck.semantics.values import (
    UNKNOWN,
    ClassRef,
    EachDevice,
    FunctionRef,
    NoneOr,
    OneOf,
    PartialRef,
    TritonTarget,
    constant_options,
    contains_unknown,
)

if TYPE_CHECKING:
    from gatecheck.semantics.evaluator import Evaluator

# Files that may spell the function's name before the search gives up (a name spelled
# everywhere is a helper whose callers cannot all be read), and call sites read.
MAX_FILES = MAX_CALLER_FILES
MAX_CALLS = 24
MAX_CONSTRUCTIONS = 128
_NOT_FOUND = object()
# The name dataclasses.replace is called by, and a name spelled between its parentheses.
_REPLACE = "replace"
_WORD = re.compile(r"\w+")
# A method's callers are searched for a parameter whose name speaks of the device (its
# capability, SM number, arch, major or minor, the GPU or device): a bound on the cost,
# not a reading (the value is still what the callers pass). Searched for every method
# parameter, sglang 0.5.9's one-process audit took 11.0 s instead of 7.4 s, for the same
# two rows (server_args.py `_set_default_nsa_kv_cache_dtype(self, major)`).
_DEVICE_WORDS = re.compile(
    r"(?:^|_)(?:capability|cap|cc|sm|sm_version|arch|major|minor|gpu|device)(?:_|$)"
)


@dataclass(frozen=True)
class _Site:
    call: nodes.Call
    offset: int  # leading parameters the call does not spell (`self` of a constructor)


NOT_FOUND = _NOT_FOUND
# A default that is there but not read (`field(default_factory=list)`): a call that
# leaves it gives what cannot be read.
UNREAD_DEFAULT = object()


@dataclass(frozen=True)
class Parameter:
    """A parameter as a call binds it: by `name`, or at `index` among the positional
    parameters (`self` counted; None: keyword-only), else its `default` (a node,
    UNREAD_DEFAULT, or None: the call must pass it)."""

    name: str
    index: int | None
    default: Any


def _parameter(func: nodes.FunctionDef, node: nodes.NodeNG) -> Parameter:
    name = str(getattr(node, "name", ""))
    positional = [*func.args.posonlyargs, *func.args.args]
    index = next((i for i, a in enumerate(positional) if a is node), None)
    try:
        default = func.args.default_value(name)
    except Exception:  # astroid's NoDefault: a required parameter
        default = None
    return Parameter(name, index, default)


def searched_names(facts: dict[Any, Any]) -> set[str]:
    """The names whose call sites a search looked for (kept in the shared facts): a file
    that comes to spell a call of one can change an answer without spelling an arch idiom,
    so a cached result must not outlive such a change."""
    found: set[str] = facts.setdefault("searched-call-names", set())
    return found


def parameter_from_callers(ev: Evaluator, node: nodes.NodeNG, args: nodes.Arguments) -> Any:
    """The value every caller passes for parameter `node` of the function owning `args`,
    or `_NOT_FOUND` (callers not all resolved: ask the naming convention)."""
    func = args.parent
    if not ev.follow_callers:
        return _NOT_FOUND
    if not isinstance(func, nodes.FunctionDef) or args.vararg == getattr(node, "name", ""):
        return _NOT_FOUND
    # A caller's argument that is its own caller's parameter is searched in turn; a cycle
    # back to this parameter reads as unknown (bindings.binding_value's active set).
    method = isinstance(func.parent, nodes.ClassDef) and func.name != "__init__"
    if method and not _DEVICE_WORDS.search(str(getattr(node, "name", "")).lower()):
        return _NOT_FOUND  # a bound on the search's cost: see _DEVICE_WORDS
    sites = _call_sites(ev, func)
    if not sites:
        return _NOT_FOUND
    # A call in the function that passes the parameter on as it came adds no value of
    # its own (`cls.base_type.is_supported(compute_capability)` in an is_supported).
    sites = [site for site in sites if not _passes_itself_on(site, func, node)]
    if not sites:
        return _NOT_FOUND
    if args.kwarg and args.kwarg == getattr(node, "name", ""):
        return _extra_keywords_met(ev, sites, func)
    met = _met(ev, sites, _parameter(func, node))
    if isinstance(met, DeviceFromSomeCallers) and func.name == "__init__":
        # An object built with arch values the project does not pass (an override
        # context, a test double) stands for other hardware: not read as the device's.
        return _NOT_FOUND
    return met


def field_from_constructions(ev: Evaluator, cls: nodes.ClassDef, parameter: Parameter) -> Any:
    """The value every construction of `cls` spelled with its name (`Specs(top_cc=...)`)
    passes for `parameter` of the `__init__` a @dataclass writes (dataclass_init.py), or
    `_NOT_FOUND`: constructions not all resolved, or a `dataclasses.replace(...)` call
    that may give the field another value (`replace(specs, top_cc=...)`, or `**changes`
    whose names are not read), found by its text (call_names.call_arguments)."""
    sites = _field_sites(ev, cls, parameter.name)
    if not sites:
        return _NOT_FOUND
    met = _met(ev, sites, parameter)
    return _NOT_FOUND if isinstance(met, DeviceFromSomeCallers) else met


def field_arguments(
    ev: Evaluator, cls: nodes.ClassDef, name: str
) -> list[tuple[nodes.NodeNG, Any]] | None:
    """Each construction of @dataclass `cls` that spells a value for its field `name`
    (`Capability(min_cc=(9, 0))`, or at the field's place): the expression and its
    value; constructions leaving the default are not among them. None where the
    constructions are not all known, or the field may be given another value later
    (field_from_constructions' conditions)."""
    from gatecheck.semantics.dataclass_init import init_parameters

    parameters = init_parameters(ev, cls)
    if parameters is None or name not in parameters:
        return None
    parameter = parameters[name]
    sites = _field_sites(ev, cls, name)
    if not sites:
        return None
    found: list[tuple[nodes.NodeNG, Any]] = []
    for site in sites:
        node = _spelled_argument(site, parameter)
        if node is None:
            continue
        through = _through_factory(ev, site, node)
        if through is None:
            found.append((node, _argument(ev, site, parameter)))
        elif through is _NOT_FOUND:
            return None
        else:
            found.extend(through)
    return found


def _spelled_argument(site: _Site, parameter: Parameter) -> nodes.NodeNG | None:
    """The expression `site` spells for `parameter`, by keyword or by place."""
    node = next((k.value for k in site.call.keywords or () if k.arg == parameter.name), None)
    if node is None and parameter.index is not None:
        at = parameter.index - site.offset
        plain = not any(isinstance(a, nodes.Starred) for a in site.call.args)
        if plain and 0 <= at < len(site.call.args):
            node = site.call.args[at]
    return node


def _through_factory(ev: Evaluator, site: _Site, node: nodes.NodeNG) -> Any:
    """Where a classmethod's `cls(...)` passes one of its own parameters on (`min_cuda_arch
    =min_sm`): what each call of the classmethod spells for it (`CapabilityRequirement.
    cuda(min_sm=(10, 0))`), the expression and its value, calls leaving it to its default
    not among them; `_NOT_FOUND` where those calls are not all known. None where `node`
    is no such parameter."""
    through = _factory_calls(ev, site, node)
    if through is None or through is _NOT_FOUND:
        return through
    calls, parameter = through
    found: list[tuple[nodes.NodeNG, Any]] = []
    for call_site in calls:
        spelled = _spelled_argument(call_site, parameter)
        if spelled is not None:
            found.append((spelled, _argument(ev, call_site, parameter)))
    return found


def _factory_calls(ev: Evaluator, site: _Site, node: nodes.NodeNG) -> Any:
    """The calls of the classmethod whose `cls(...)` `site` is, and its parameter that
    `node` (what `site` passes for a field) is; None where `node` is no parameter of a
    classmethod; `_NOT_FOUND` where the calls are not all known."""
    method = site.call.frame()
    if not (
        isinstance(method, nodes.FunctionDef)
        and isinstance(node, nodes.Name)
        and "classmethod" in decorator_names(method)
    ):
        return None
    bound = method.locals.get(node.name, [])
    if len(bound) != 1 or not isinstance(bound[0], nodes.AssignName):
        return None
    if not isinstance(bound[0].parent, nodes.Arguments):
        return None  # a local of the classmethod: its value is read where it is made
    calls = _call_sites(ev, method)
    return _NOT_FOUND if calls is None else (calls, _parameter(method, bound[0]))


def _field_sites(ev: Evaluator, cls: nodes.ClassDef, name: str) -> list[_Site] | None:
    """The constructions of @dataclass `cls` (searched once per class), where its field
    `name` keeps the value a construction gives it: None when callers are not followed,
    or a `replace(...)` may give it another."""
    if not ev.follow_callers or _may_be_replaced(ev, name):
        return None
    found: list[_Site] | None = remembered(
        ev, ("constructions", id(cls)), lambda: _constructions(ev, cls, 0), None
    )
    return found


def _may_be_replaced(ev: Evaluator, name: str) -> bool:
    """Whether a call spelled `replace(...)` in a file that spells `dataclasses` (the
    module `dataclasses.replace` is imported from: `str.replace` calls elsewhere are
    hundreds of files, 0.4 s of sglang 0.5.23's audit to read) spells `name` or `**`
    between its parentheses (the names and spreads of every such call, read once; a
    `replace` imported under another name is not seen)."""
    nothing: frozenset[str] = frozenset()
    spread, words = remembered(
        ev, ("replace-arguments",), lambda: _replace_arguments(ev), (True, nothing)
    )
    return spread or name in words


def _replace_arguments(ev: Evaluator) -> tuple[bool, frozenset[str]]:
    spread, words = False, set[str]()
    searched_names(ev.facts).add(_REPLACE)
    if ev.project.read_log is not None:
        ev.project.read_log.note(f"{CALLS}{_REPLACE}")
    with ev.project.scanning():  # read per name searched (CALLS), not per file
        for path in _files_calling(ev).get(_REPLACE, ()):
            text = ev.project.text_of(path) or ""
            if "dataclasses" not in text:
                continue
            for arguments in call_arguments(text, _REPLACE):
                spread = spread or "**" in arguments
                words.update(_WORD.findall(arguments))
    return spread, frozenset(words)


@dataclass(frozen=True)
class DeviceFromSomeCallers:
    """The callers that could be read all pass the device's identity in one form (its
    capability, SM number or major: `supported(arch)` with `arch = major * 10 + minor`),
    the others what cannot be read (`c.supported(arch)` in a public method whose own
    callers are the users'): `value` is what the read ones pass. The parameter is taken
    to stand for the device the same way everywhere, marked assumed (conventions.py)."""

    value: Any


def _met(ev: Evaluator, sites: list[_Site], parameter: Parameter) -> Any:
    """What `sites` pass for `parameter`, met (see the module's docstring); where some
    cannot be read and every other passes a value read from the device, what those pass,
    as a DeviceFromSomeCallers."""
    values: list[Any] = []
    of_device: list[bool] = []
    # Only a parameter named for the device may be taken to be it where callers are
    # missing (the value of `def check(value)` some caller computes from the device's
    # SM count is not the device).
    named = _DEVICE_WORDS.search(parameter.name.lower()) is not None
    # An unreadable value met at a cycle's cut (or the depth bound) may be readable from
    # another start: it leaves the search answering nothing, as before, whatever was
    # evaluated first (reads.py).
    cut = False
    for site in sites:
        if named:
            with ev.tracking() as reads:
                values.append(_argument(ev, site, parameter))
            of_device.append(reads.device and _device_form(values[-1]))
            if _unreadable(values[-1]) and (reads.cuts or reads.cycle or reads.deep):
                cut = True
        else:
            values.append(_argument(ev, site, parameter))
            of_device.append(False)
        # One caller passing what cannot be read: the search answers nothing, whatever
        # the others pass (lazy_joins.py), unless every other passes the device's.
        if unknown_anyway(ev) and (
            cut or (_nothing_found(values, of_device) if named else _unreadable(values[-1]))
        ):
            break
    if any(_unreadable(v) for v in values):
        if cut or not _all_of_device(values, of_device):
            return _NOT_FOUND
        met = _meet([v for v in values if not _unreadable(v)])
        return _NOT_FOUND if met is UNKNOWN else DeviceFromSomeCallers(met)
    return _meet(values)


def _nothing_found(values: list[Any], of_device: list[bool]) -> bool:
    """Whether the search answers nothing, whatever the sites not yet read pass: one
    value cannot be read and another that can is not the device's."""
    read = _read_of_device(values, of_device)
    return len(read) < len(values) and not all(read)


def _all_of_device(values: list[Any], of_device: list[bool]) -> bool:
    """Whether some of `values` can be read and every one that can is the device's."""
    read = _read_of_device(values, of_device)
    return bool(read) and all(read)


def _read_of_device(values: list[Any], of_device: list[bool]) -> list[bool]:
    """For each value that can be read, whether it is the device's."""
    return [d for v, d in zip(values, of_device, strict=True) if not _unreadable(v)]


def _meet(values: list[Any]) -> Any:
    # Callers that leave a None default and callers that pass a value: None or it.
    met = values[0]
    for value in values[1:]:
        met = join_optional(met, value)
    if met is UNKNOWN or any(isinstance(v, OneOf) for v in values):
        # Callers that pass different constants (`min_major=8` here, `9` there): inside
        # the function the parameter is one of them (logic.either, unknown past
        # MAX_OPTIONS or where they are not all constants, or all references).
        return either(values)
    return met


def _device_form(value: Any) -> bool:
    """A number, a (major, minor) pair or a Triton target: a form the device's identity
    is passed in (`major * 10 + minor`, the capability), whichever generation it is."""
    if isinstance(value, bool):
        return False
    return isinstance(value, (int, tuple, TritonTarget))


def never_called(ev: Evaluator, func: nodes.FunctionDef) -> bool:
    """Whether the callers search (the audit's) finds no call of `func` in the project:
    as for a parameter no caller passes, what it would do is not among the project's
    runs (an API for its users, `set_accelerator(obj)`)."""
    return ev.follow_callers and _call_sites(ev, func) == []


def _unreadable(value: Any) -> bool:
    return value is _NOT_FOUND or (
        contains_unknown(value) and not _options(value) and not _each_device(value)
    )


def _each_device(value: Any) -> bool:
    """A sequence with an item per device, each the device's (values.EachDevice: a
    caller passes `[get_device_capability(i) for i in range(device_count())]`, the
    length not known): every item is the one known value, so the callee reads it as
    the comprehension in place is read (`all(major in (10, 12) for major, _ in caps)`
    in a helper that decides for all visible GPUs)."""
    return isinstance(value, EachDevice) and not contains_unknown(value.item)


def _options(value: Any) -> bool:
    """One of a few constants (values.OneOf, `True or False` as a caller's flag), or of a
    few references (`inputs` bound to a record, and under an `if` to a copy of it with a
    field changed: attributes read through it are each option's, met)."""
    if not isinstance(value, OneOf):
        return False
    if constant_options(value) is not None:
        return True
    return all(isinstance(o, REFERENCES) for o in value.options)


def _call_sites(ev: Evaluator, func: nodes.FunctionDef) -> list[_Site] | None:
    """Every call of `func` in the project, or None when one cannot be resolved. The
    calls are the same for every generation: kept in the shared facts."""
    # A search reached again from inside itself finds nothing.
    return remembered(
        ev, ("call-sites", id(func)), lambda: _outside_tests(ev, _search(ev, func)), None
    )


def _outside_tests(ev: Evaluator, sites: list[_Site] | None) -> list[_Site] | None:
    """The calls outside the project's tests where there are some: a test passes each
    value a branch needs on purpose (sglang's `_can_enable(is_blackwell=True)` beside
    the model's `is_blackwell=current_platform.is_blackwell()`), which says nothing of
    what the device decides where the code runs."""
    if not sites:
        return sites
    roots = ev.project.roots
    running = [site for site in sites if not in_tests(site.call, roots)]
    return running or sites


_TEST_FOLDERS = frozenset({"test", "tests", "testing"})


def in_tests(node: nodes.NodeNG, roots: Collection[Path] = ()) -> bool:
    """Whether `node` is in a test file: named `test_*.py`, `*_test.py` or
    `conftest.py`, or under a `test`/`tests`/`testing` folder inside the scanned root
    holding it (a project checked out under a folder named `tests` is no test)."""
    path = PurePath(str(node.root().file or ""))
    name = path.name
    if name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py":
        return True
    folders = path.parts[:-1]
    for root in roots:
        if path.is_relative_to(root):
            folders = path.relative_to(root).parts[:-1]
            break
    return not _TEST_FOLDERS.isdisjoint(folders)


def _search(ev: Evaluator, func: nodes.FunctionDef) -> list[_Site] | None:
    owner = func.parent
    if isinstance(owner, nodes.ClassDef) and func.name != "__init__":
        return _method_sites(ev, func)
    if isinstance(owner, nodes.ClassDef):
        # An `__init__`'s callers: a function's bound (a wider one cost sglang 0.5.9's
        # audit a tenth of its time and 19 MB for one vendor row).
        return _calls_of(ev, str(owner.name), owner, 1, func.root())
    if isinstance(owner, (nodes.Module, nodes.FunctionDef)):
        return _calls_of(ev, str(func.name), func, 0, func.root())
    return None


def _constructions(ev: Evaluator, cls: nodes.ClassDef, offset: int) -> list[_Site] | None:
    """The calls constructing @dataclass `cls` (by its name), for its fields' values:
    searched in more files than a function's callers (MAX_CONSTRUCTION_FILES); and those
    its classmethods make through their first parameter (`return cls(min_cuda_arch=
    min_sm)` in sglang's `CapabilityRequirement.cuda`). None where a method constructs its
    own class otherwise (`type(self)(...)`, `self.__class__(...)`): not all are read."""
    spelled = str(cls.name)
    sites = _calls_of(
        ev, spelled, cls, offset, cls.root(), MAX_CONSTRUCTION_FILES, MAX_CONSTRUCTIONS
    )
    inner = _own_constructions(cls, offset)
    if sites is None or inner is None:
        return None
    return [*sites, *inner]


def _own_constructions(cls: nodes.ClassDef, offset: int) -> list[_Site] | None:
    """The calls `cls`'s own methods construct it with: `cls(...)` in a classmethod; None
    where one constructs it as `type(self)(...)` or `self.__class__(...)`."""
    found: list[_Site] = []
    for method in cls.mymethods():
        params = [*method.args.posonlyargs, *method.args.args]
        first = params[0].name if params else None
        factory = first is not None and "classmethod" in decorator_names(method)
        for call in method.nodes_of_class(nodes.Call):
            callee = call.func
            if factory and isinstance(callee, nodes.Name) and callee.name == first:
                found.append(_Site(call, offset))
            elif _own_class(callee):
                return None
    return found


def _own_class(callee: nodes.NodeNG) -> bool:
    """`type(x)` or `x.__class__`: a class read off an instance at run time."""
    if isinstance(callee, nodes.Attribute):
        return callee.attrname == "__class__"
    return (
        isinstance(callee, nodes.Call)
        and isinstance(callee.func, nodes.Name)
        and callee.func.name == "type"
        and len(callee.args) == 1
    )


def _calls_of(
    ev: Evaluator,
    spelled: str,
    target: nodes.FunctionDef | nodes.ClassDef,
    offset: int,
    home: nodes.NodeNG,
    most_files: int = MAX_FILES,
    most_calls: int = MAX_CALLS,
) -> list[_Site] | None:
    """The calls spelled `spelled(...)` that resolve to `target` (a function, or a class
    constructed), or None when one may and does not resolve, or when more than
    `most_files` files spell it or more than `most_calls` such calls resolve."""
    searched_names(ev.facts).add(spelled)
    if ev.project.read_log is not None:
        ev.project.read_log.note(f"{CALLS}{spelled}")  # the files spelling a call of it
    files = _reaching(ev, home, spelled, _files_calling(ev).get(spelled, ()), most_files)
    if len(files) > most_files:
        return None
    sites: list[_Site] = []
    for module in _modules(ev, home, files):
        for call in _calls_named(ev, module, spelled):
            callee = call.func
            if isinstance(callee, nodes.Subscript):
                # `kernel[grid](x, FAST=fast)`: a Triton kernel's launch binds its
                # parameters as a call does (its launch options are not parameters). A
                # function with no decorator is not subscriptable: not a call of it.
                if not target.decorators:
                    continue
                callee = callee.value
            value = ev.value(callee)
            # A callee chosen at runtime (values.OneOf) calls it if one option is it.
            options = value.options if isinstance(value, OneOf) else (value,)
            if any(isinstance(o, (FunctionRef, ClassRef)) and o.node is target for o in options):
                sites.append(_Site(call, offset))
            elif value is UNKNOWN or any(isinstance(o, PartialRef) for o in options):
                return None  # may be a caller: the callers are not all known
            if len(sites) > most_calls:
                return None
    return sites


def _reaching(
    ev: Evaluator, home: nodes.NodeNG, name: str, files: tuple[Path, ...], most: int
) -> tuple[Path, ...]:
    """Of `files` (spelling a call of `name`), those that can call the one defined in
    module `home`: its own, and those importing it (call_names.may_reach); the others
    call another module's function of that name. Past `most` of them the search gives
    up: the first `most + 1` found are enough to say so (a name like `run(` is spelled
    in thousands of files)."""
    if not isinstance(home, nodes.Module) or len(files) <= 1:
        return files
    module = str(home.name)
    key = ("reaching", module, name, most)
    found = ev.facts.get(key)
    if found is None:
        project = ev.project

        def package_words(package: str) -> frozenset[str] | None:
            path = project.path_of(package)
            if path is None or path.name != "__init__.py":
                return None
            key = ("package-words", path)  # the text's: read once for every name
            if key not in ev.facts:
                ev.facts[key] = spelled_words(project.text_of(path))
            spelled: frozenset[str] | None = ev.facts[key]
            return spelled

        words = reaching_words_in(module, name, package_words)
        home_path = project.path_of(module)
        dotted = set(_files_calling_attribute(ev).get(name, ()))
        kept = []
        with project.scanning():  # read per name searched (CALLS), not per file
            for path in files:
                text = project.text_of(path)
                if path == home_path or (
                    text is not None
                    and may_reach(
                        text,
                        project.name_of(path),
                        name,
                        words,
                        path in dotted,
                        _import_shape(ev, path, text),
                    )
                ):
                    kept.append(path)
                    if len(kept) > most:
                        break
        found = ev.facts[key] = tuple(kept)
    return tuple(found)


def _import_shape(ev: Evaluator, path: Path, text: str) -> ImportShape:
    """call_names.import_shape of a file, made once a run (a search of each name read
    the whole text twice for it: a tenth of FlashInfer 0.7.4's audit)."""
    key = ("import-shape", path)
    shape: ImportShape | None = ev.facts.get(key)
    if shape is None:
        shape = ev.facts[key] = import_shape(text)
    return shape


def _method_sites(ev: Evaluator, func: nodes.FunctionDef) -> list[_Site] | None:
    """The calls that may run method `func`: those that resolve to it, and those whose
    callee is unknown (`kernel.is_supported(cc)`, `kernel` a parameter) where the call
    fits its signature: the receiver may be its class or a subclass that inherits it.
    A call that resolves to anything else (another class's method, a module's function)
    is not one. More calls than run it can only add values (the parameter's value is
    every site's, met), never drop one; a site whose argument is not known leaves the
    parameter unknown."""
    spelled = str(func.name)
    searched_names(ev.facts).add(spelled)
    if ev.project.read_log is not None:
        ev.project.read_log.note(f"{CALLS}{spelled}")
    # Only `x.name(...)` runs a method: a bare `name(...)` elsewhere is another
    # function's call and neither counts against the bound nor is read.
    files = _files_calling_attribute(ev).get(spelled, ())
    if len(files) > MAX_METHOD_CALLER_FILES:
        return None
    kind = _method_kind(func)
    owner = func.parent
    assert isinstance(owner, nodes.ClassDef)
    # A call that resolves to the method this one overrides runs this one when its
    # receiver is of this class (`self.check(cc)` in the base's body).
    above = {id(k) for k in classes.mro(ev, owner) if k is not owner}
    sites: list[_Site] = []
    for module in _modules(ev, func.root(), files):
        for call in _calls_named(ev, module, spelled):
            if not isinstance(call.func, nodes.Attribute):
                continue  # a method is called through its class or an instance
            value = ev.value(call.func)
            offset = 0 if kind == "static" else 1
            # A callee chosen at runtime (values.OneOf: one of two communicator classes)
            # may be it if one option is.
            options = value.options if isinstance(value, OneOf) else (value,)
            found = next(
                (o for o in options if isinstance(o, FunctionRef) and o.node is func), None
            )
            if found is not None:
                # A plain method called on its class (`Cls.m(obj, x)`) spells `self`.
                if kind == "method" and found.receiver is None:
                    offset = 0
                sites.append(_Site(call, offset))
            elif any(isinstance(o, PartialRef) for o in options):
                return None  # its arguments shifted by the partial's: not read
            elif (value is UNKNOWN or any(_overridden(o, above) for o in options)) and _fits(
                call, func, offset
            ):
                sites.append(_Site(call, offset))
            if len(sites) > MAX_CALLS:
                return None
    return sites


def _overridden(value: Any, above: set[int]) -> bool:
    """Whether `value` is a method of a class above the searched method's (whose name
    it has: the call spelled it)."""
    return (
        isinstance(value, FunctionRef)
        and isinstance(value.node, nodes.FunctionDef)
        and isinstance(value.node.parent, nodes.ClassDef)
        and id(value.node.parent) in above
    )


def _method_kind(func: nodes.FunctionDef) -> str:
    decorators = decorator_names(func)
    if "staticmethod" in decorators:
        return "static"
    return "class" if "classmethod" in decorators else "method"


def _fits(call: nodes.Call, func: nodes.FunctionDef, offset: int) -> bool:
    """Whether `call` can bind `func`'s parameters (past the `offset` it does not spell)
    without a TypeError; True where it unpacks `*args` or a `**` whose names are not
    known (`**kw`): it may. A `**` of dict displays may give the names they spell."""
    args = func.args
    spread = spread_names(call)
    if any(isinstance(a, nodes.Starred) for a in call.args) or spread is None:
        return True
    positional = [*args.posonlyargs, *args.args][offset:]
    if len(call.args) > len(positional) and not args.vararg:
        return False
    named = {a.name for a in [*args.args, *args.kwonlyargs]}
    given = {k.arg for k in call.keywords or () if k.arg is not None}
    if not args.kwarg and not given <= named:
        return False
    # A name a `**` display may spread may be given (spread_keywords.py).
    given |= spread
    required = positional[: len(positional) - len(args.defaults)]
    missing = [a.name for a in required[len(call.args) :] if a.name not in given]
    kw_required = [
        a.name
        for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=False)
        if d is None and a.name not in given
    ]
    return not missing and not kw_required


def _modules(ev: Evaluator, home: nodes.NodeNG, files: tuple[Path, ...]) -> Iterator[nodes.Module]:
    """The function's module, then the other files' (built only when reached: a search
    that ends early, on an unresolved call, parses no more of them)."""
    if isinstance(home, nodes.Module):
        yield home
    for path in files:
        module = ev.project.module_at(path)
        if module is not None and module is not home:
            yield module


# The shared facts' keys of the index of the files spelling a call of each name
# (called_name_set: `name(`, `x.name(`, `name[grid](`) and of those spelling `x.name(`
# (attribute_called_name_set); impact's BASE amends both (impact/overlay.py).
CALLERS_INDEX = "files-calling"
ATTRIBUTE_CALLERS_INDEX = "files-calling-attribute"
# Each index's key and what it reads of a text, built in one pass (_files_calling).
INDEXES: tuple[tuple[str, Callable[[str], Collection[str]]], ...] = (
    (CALLERS_INDEX, called_name_set),
    (ATTRIBUTE_CALLERS_INDEX, attribute_called_name_set),
)


def _files_calling(ev: Evaluator) -> dict[str, tuple[Path, ...]]:
    """Each name spelled before `(` (outside a `def`) -> the files that spell it so: one
    pass over the project's text, kept in the shared facts (a text search per function
    made the search cost more than the audit). A function passed as a value (a callback)
    is not a call: its callers are not followed."""
    if any(key not in ev.facts for key, _ in INDEXES):
        # Both or neither: a run seeded with one (impact's BASE, overlay.py) that lacked
        # the other raised KeyError in every callers search of a function.
        found: list[dict[str, list[Path]]] = [{} for _ in INDEXES]
        with ev.project.scanning():  # read per name searched (CALLS), not per file
            for path in ev.project.files:
                text = ev.project.text_of(path)
                if text is None:
                    continue
                for (_key, names_in), index in zip(INDEXES, found, strict=True):
                    for name in names_in(text):
                        index.setdefault(name, []).append(path)
        for (key, _names_in), index in zip(INDEXES, found, strict=True):
            ev.facts[key] = {name: tuple(paths) for name, paths in index.items()}
    built: dict[str, tuple[Path, ...]] = ev.facts[CALLERS_INDEX]
    return built


def _files_calling_attribute(ev: Evaluator) -> dict[str, tuple[Path, ...]]:
    """Each name spelled `x.name(` -> the files that spell it so (built with
    _files_calling's index, in the same pass)."""
    _files_calling(ev)
    index: dict[str, tuple[Path, ...]] = ev.facts[ATTRIBUTE_CALLERS_INDEX]
    return index


def files_calling(ev: Evaluator, name: str) -> tuple[Path, ...]:
    """The files that spell a call of `name` (`name(...)`, `x.name(...)`), from the
    project's index; noted in the read log as the callers search notes them."""
    if ev.project.read_log is not None:
        ev.project.read_log.note(f"{CALLS}{name}")
    return _files_calling(ev).get(name, ())


def _calls_named(ev: Evaluator, module: nodes.Module, name: str) -> list[nodes.Call]:
    """The calls of `module` spelled `name` (`name(...)`, `x.name(...)`), kept in the
    shared facts (a search per function would walk the module again)."""
    key = ("calls-named", id(module), name)
    held = ev.facts.get(key)
    if held is None:
        # The module kept alive with them.
        held = ev.facts[key] = (module, calls_named(module, name, launches=True))
    return held[1]


def _passes_itself_on(site: _Site, func: nodes.FunctionDef, node: nodes.NodeNG) -> bool:
    name = str(getattr(node, "name", ""))
    if site.call.frame() is not func or func.locals.get(name) != [node]:
        return False  # another function's call, or the parameter is bound again
    call = site.call
    passed = next((k.value for k in call.keywords or () if k.arg == name), None)
    if passed is None:
        positional = [*func.args.posonlyargs, *func.args.args]
        index = next((i for i, a in enumerate(positional) if a is node), None)
        at = None if index is None else index - site.offset
        starred = any(isinstance(a, nodes.Starred) for a in call.args)
        if at is not None and 0 <= at < len(call.args) and not starred:
            passed = call.args[at]
    return isinstance(passed, nodes.Name) and passed.name == name


def _argument(ev: Evaluator, site: _Site, parameter: Parameter) -> Any:
    """The value `site` passes for the parameter (its default when it passes none). A
    keyword the call spells gives it, whatever its `**` arguments hold (one naming it
    too makes the call raise); else a `**` argument whose keys can be read (a dict
    display, the calling function's own `**fields` as its callers fill it) gives it
    where it holds the name, and none does where none holds it."""
    call, name = site.call, parameter.name
    for keyword in call.keywords or ():
        if keyword.arg == name:
            return _passed(ev, keyword.value)
    spread = spread_names(call)
    if spread is None:
        spread_values = _spread_keywords(ev, call)
        if spread_values is None:
            return _NOT_FOUND
        if name in spread_values:
            found = spread_values[name]
            if not isinstance(found, _SomeEntries):
                return found
            # The entries that lack the name leave the parameter as the call does.
            other = _unspread(ev, site, parameter)
            return found.value if other is _NOT_FOUND else _meet([found.value, other])
    elif name in spread:
        return _NOT_FOUND
    return _unspread(ev, site, parameter)


def _unspread(ev: Evaluator, site: _Site, parameter: Parameter) -> Any:
    """The value `site` passes for the parameter where no `**` argument gives it: by
    place, else its default."""
    call, index = site.call, parameter.index
    if any(isinstance(a, nodes.Starred) for a in call.args):
        passed = _spread(ev, call.args)
        if passed is None:
            return _NOT_FOUND
        if index is not None and 0 <= index - site.offset < len(passed):
            return passed[index - site.offset]
    elif index is not None and 0 <= index - site.offset < len(call.args):
        return _passed(ev, call.args[index - site.offset])
    if parameter.default is None:
        return _NOT_FOUND  # a required parameter not passed
    if parameter.default is UNREAD_DEFAULT:
        return UNKNOWN
    return ev.value(parameter.default)


def _spread_keywords(ev: Evaluator, call: nodes.Call) -> dict[str, Any] | None:
    """The keywords a call's `**` arguments give, by name, where each is a dict whose keys
    are known strings, or an entry of a table of such dicts looked up by a key not known
    (`f(**MATRIX[version])`: each name one of the entries' values, _SomeEntries where
    some entries lack it); None where one is not."""
    given: dict[str, Any] = {}
    for keyword in call.keywords or ():
        if keyword.arg is not None:
            continue
        value = ev.value(keyword.value)
        if type(value) is not dict:
            value = _entry_of_table(ev, keyword.value)
        if value is None or not all(type(k) is str for k in value):
            return None
        given.update(value)
    return given


@dataclass(frozen=True)
class _SomeEntries:
    """A name some entries of a table of keyword dicts give (`value`, one of theirs), the
    others not: where they do not, the parameter is what the call leaves it."""

    value: Any


def _entry_of_table(ev: Evaluator, node: nodes.NodeNG) -> dict[str, Any] | None:
    """`TABLE[key]` with `key` not known, `TABLE` a dict whose values are dicts: each name
    one of the values the entries give it (logic.either), marked where some entries do not
    give it (_SomeEntries); None otherwise."""
    if not isinstance(node, nodes.Subscript):
        return None
    table = ev.value(node.value)
    if type(table) is not dict or not table:
        return None
    entries = list(table.values())
    if not all(type(e) is dict for e in entries):
        return None
    names = dict.fromkeys(name for entry in entries for name in entry)
    given: dict[str, Any] = {}
    for name in names:
        value = either([e[name] for e in entries if name in e])
        every = all(name in e for e in entries)
        given[name] = value if every else _SomeEntries(value)
    return given


def _extra_keywords_met(ev: Evaluator, sites: list[_Site], func: nodes.FunctionDef) -> Any:
    """A `**fields` parameter read where no call bound it: the dict of the keywords no
    other parameter takes, where every call's can be read and they all pass the same
    names (each name's values met as a parameter's are); else `_NOT_FOUND`."""
    taken = {a.name for a in (*func.args.args, *func.args.kwonlyargs)}
    each: list[dict[str, Any]] = []
    for site in sites:
        spread = _spread_keywords(ev, site.call)
        if spread is None or any(isinstance(v, _SomeEntries) for v in spread.values()):
            return _NOT_FOUND  # a name perhaps given, perhaps not: not a dict of known keys
        given = {k: v for k, v in spread.items() if k not in taken}
        for keyword in site.call.keywords or ():
            if keyword.arg is not None and keyword.arg not in taken:
                given[keyword.arg] = _passed(ev, keyword.value)
        if each and given.keys() != each[0].keys():
            return _NOT_FOUND
        each.append(given)
    return {name: _meet([given[name] for given in each]) for name in each[0]}


def _passed(ev: Evaluator, argument: nodes.NodeNG) -> Any:
    """An argument's value; a local that may be None (`cap = probe(); f(cap)`) is passed
    as such (values.NoneOr): the parameter is unknown where it is read as a whole, its
    value where None would raise (`major, minor = cap`). In a comprehension, its targets
    hold what they run over (_comprehension_targets)."""
    value = ev.value(argument, _comprehension_targets(ev, argument), optional=True)
    if isinstance(value, NoneOr) and contains_unknown(value.value) and not _options(value.value):
        return UNKNOWN
    return value


_COMPREHENSIONS = (nodes.ListComp, nodes.SetComp, nodes.DictComp, nodes.GeneratorExp)
# Where the comprehensions around an argument end: its own function, lambda, class or module.
_SCOPES = (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef, nodes.Module)


def _comprehension_targets(ev: Evaluator, node: nodes.NodeNG) -> Env | None:
    """The targets of the comprehensions a call's argument sits in, each bound to what a
    `for` over the same iterable binds (env.loop_target: one of a few known items, over
    the machine's devices the device's item): `all(supported(c) for c in caps)` passes
    each device's capability. None where no comprehension holds it, or where one filters
    its items with an `if` (those it lets through are not all of them): its targets stay
    unknown, as before."""
    chain: list[nodes.NodeNG] = []
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, _SCOPES):
        # Not its first iterable, which runs where the comprehension is made.
        if isinstance(parent, _COMPREHENSIONS) and child is not parent.generators[0]:
            chain.append(parent)
        child, parent = parent, parent.parent
    if not chain:
        return None
    env: Env = {}
    for comprehension in reversed(chain):  # the outermost first
        for generator in comprehension.generators:
            if generator.ifs:
                return None
            # An entry of its own (ev.value): the search may run outside an evaluation
            # (field_arguments, for the audit's construction bounds).
            bind_target(generator.target, loop_target(ev.value(generator.iter, env)), env)
    return env


def _spread(ev: Evaluator, arguments: list[nodes.NodeNG]) -> list[Any] | None:
    """The positional values of a call that unpacks a known tuple or list
    (`f(*get_compute_capability(dev))`: the device's major and minor), in order; None
    when an unpacked value's length is not known."""
    values: list[Any] = []
    for argument in arguments:
        if not isinstance(argument, nodes.Starred):
            values.append(ev.value(argument))
            continue
        unpacked = ev.value(argument.value)
        if not isinstance(unpacked, (tuple, list)):
            return None
        values.extend(unpacked)
    return values


def calls_by_name(module: nodes.Module) -> dict[str, list[nodes.Call]]:
    """The calls of `module` by the name they spell (`name(...)`, `x.name(...)`)."""
    by_name: dict[str, list[nodes.Call]] = {}
    for call in module.nodes_of_class(nodes.Call):
        spelled = callee_name(call)
        if spelled is not None:
            by_name.setdefault(spelled, []).append(call)
    return by_name


def calls_named(module: nodes.Module, name: str, launches: bool = False) -> list[nodes.Call]:
    """`calls_by_name(module).get(name, [])`, in the same order, walking only the
    statements whose text spells `name` (a function body that does not is never built:
    loading/lazy.py). `launches`: also `name[grid](...)`."""
    return [
        call
        for call in spelled_nodes(module, (nodes.Call,), {name})
        if isinstance(call, nodes.Call) and callee_name(call, launches) == name
    ]


def callee_name(call: nodes.Call, launches: bool = False) -> str | None:
    """The name a call spells its callee with (`f(...)`, `x.f(...)`), else None.
    `launches`: also a Triton kernel's launch, `f[grid](...)` or `x.f[grid](...)`."""
    callee = call.func
    if launches and isinstance(callee, nodes.Subscript):
        callee = callee.value
    spelled = (
        callee.attrname if isinstance(callee, nodes.Attribute) else getattr(callee, "name", None)
    )
    return spelled if isinstance(spelled, str) else None


def call_sites(ev: Evaluator, func: nodes.FunctionDef) -> list[tuple[nodes.Call, int]] | None:
    """Every call of `func` in the project, each with the leading parameters it does not
    spell (`self` of a constructor); None when one may not resolve (the search of
    parameter_from_callers, shared)."""
    sites = _call_sites(ev, func)
    return None if sites is None else [(site.call, site.offset) for site in sites]


def argument_node(
    call: nodes.Call, offset: int, func: nodes.FunctionDef, parameter: nodes.AssignName
) -> nodes.NodeNG | None:
    """The expression `call` passes for `parameter` of `func` (its default where it passes
    none); None where that cannot be told by the call's text: an unpacking, a required
    parameter it leaves out, a parameter it passes itself on to (a recursion)."""
    found = _parameter(func, parameter)
    if _passes_itself_on(_Site(call, offset), func, parameter):
        return None
    for keyword in call.keywords or ():
        if keyword.arg == found.name:
            return keyword.value  # whatever a `**` argument holds (see _argument)
    spread = spread_names(call)
    if any(isinstance(a, nodes.Starred) for a in call.args) or spread is None:
        return None
    if found.name in spread:
        return None
    at = None if found.index is None else found.index - offset
    if at is not None and 0 <= at < len(call.args):
        return call.args[at]
    return found.default if isinstance(found.default, nodes.NodeNG) else None
