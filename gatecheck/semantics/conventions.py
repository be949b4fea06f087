"""Name-based fallbacks, for predicates without a readable body (compiled extensions,
abstract methods, packages outside the scanned roots): what a name promises. Asked only
after the idioms and the bodies; every answer is marked assumed (see idioms/naming.py
for the examples)."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from astroid import nodes

from gatecheck.config.model import Generation, Registry, VocabularyEntry
from gatecheck.semantics import callers, classes, flow, replay
from gatecheck.semantics.free_atoms import single_binding
from gatecheck.semantics.idioms import tvm_device
from gatecheck.semantics.idioms._model import NOT_MINE
from gatecheck.semantics.idioms.device_presence import another_backend
from gatecheck.semantics.values import (
    UNKNOWN,
    AssumedCapability,
    Capability,
    ClassRef,
    CuteArch,
    ExternalRef,
    InstanceRef,
    NoneOr,
    OneOf,
    TritonTarget,
)

if TYPE_CHECKING:
    from gatecheck.semantics.evaluator import Evaluator

# Method/function names that conventionally return the capability or the SM version
# (abstract platform methods, compiled helpers).
_CAPABILITY_NAMES = {
    "get_device_capability",
    "get_cuda_capability",
    "device_capability",
    "compute_capability",
    # compiled extensions (`_ext.get_device_compute_capability()`)
    "get_device_compute_capability",
    "get_compute_capability",
}
_SM_VERSION_NAMES = {"get_sm_version", "get_device_sm", "get_sm", "sm_version", "get_cuda_arch"}
# ... and the device's properties (`.major`, `.minor`, shared memory): a device interface
# chosen at run time (PyTorch inductor's `get_interface_for_device(d).get_device_properties(d)`).
_PROPERTIES_NAMES = {"get_device_properties"}
# ... and its compute version as TVM spells it ("9.0"): TileLang's `compute_version`
# parameters, filled by TVM's `tvm.cuda(0).compute_version` or passed from C++.
_COMPUTE_VERSION_NAMES = {"compute_version", "get_compute_version"}

_FAMILY_MAJORS: dict[str, tuple[str, Sequence[int]]] = {
    "volta": ("nvidia", (7,)),
    "turing": ("nvidia", (7,)),
    "ampere": ("nvidia", (8,)),
    "ada": ("nvidia", (8,)),
    "hopper": ("nvidia", (9,)),
    "blackwell": ("nvidia", (10, 11, 12)),
}
_EXACT_FAMILY = {"volta": (7, 0), "turing": (7, 5), "ada": (8, 9)}
_AMD_PRODUCTS = {
    "mi200": "gfx90a",
    "mi210": "gfx90a",
    "mi250": "gfx90a",
    "mi300": "gfx942",
    "mi325": "gfx942",
    "mi350": "gfx950",
    "mi355": "gfx950",
}

# A predicate's verb at any word of the name, the generation after it: `is_hopper`, and
# `target_is_hopper` or `can_use_sm90_kernels` (a subject or modal before it says the same).
_PREDICATE_WORD = re.compile(r"(?:^|_)(?:is|has|supports?|use|check)_")
_SM_NAME = re.compile(r"(?:^|_)sm_?(\d{2,3})(a|f|x)?(?:_|$)")
_GFX_NAME = re.compile(r"(?:^|_)(gfx\d[0-9a-f]*)(?:_|$)")


# A lower-case letter or digit followed by an upper-case one: a word boundary of a
# CamelCase name (a compiled library's `TargetIsSM120`, TVM's FFI functions).
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _snake(name: str) -> str:
    """`TargetIsHopper` -> `Target_Is_Hopper`, `TargetIsSM120` -> `Target_Is_SM120`: a
    CamelCase name in words, read as its snake_case spelling is for a predicate's verb
    (not for the capability's names: `DeviceCapability(9, 0)` is a class made from its
    arguments). A name with `_`, or not in mixed case, is kept."""
    if "_" in name or name.lower() == name or name.upper() == name:
        return name
    return _CAMEL_BOUNDARY.sub("_", name)


@dataclass(frozen=True)
class Convention:
    # "predicate" | "capability" | "sm_version" | "compute_version" | "properties" |
    # "arch_text" (a parameter's only: _arch_text_parameter)
    kind: str
    admits: frozenset[str] = frozenset()
    why: str = ""


def _sm_generations(digits: str, suffix: str | None, registry: Registry) -> frozenset[str]:
    number = int(digits)
    major, minor = divmod(number, 10)
    nvidia = [g for g in registry.generations if g.vendor == "nvidia"]
    if minor != 0:
        # An explicit minor pins the exact capability (`is_sm103a_supported`).
        return frozenset(g.name for g in nvidia if g.capability == (major, minor))
    # A minor of 0 names the major's family, with an "a" (arch-specific) suffix too: it
    # may pin the minor (FlashInfer's is_sm120a_supported tests (12, 0)) or not (its
    # is_sm100a_supported tests major 10, so sm103 passes), and a guess must not be
    # narrower than the body it stands for.
    return frozenset(g.name for g in nvidia if g.major == major)


def convention_for(
    name: str, registry: Registry, vocabulary: Sequence[VocabularyEntry] = ()
) -> Convention | None:
    """What a name promises when no body can be read. `name` may be dotted."""
    bare = name.rsplit(".", 1)[-1]
    for entry in vocabulary:
        if fnmatch.fnmatchcase(name, entry.pattern) or fnmatch.fnmatchcase(bare, entry.pattern):
            return Convention("predicate", entry.admits, f"vocabulary '{entry.pattern}'")
    lowered = bare.lower().lstrip("_")
    if lowered in _CAPABILITY_NAMES:
        return Convention("capability", why=f"'{bare}' conventionally returns the capability")
    if lowered in _SM_VERSION_NAMES:
        return Convention("sm_version", why=f"'{bare}' conventionally returns the SM version")
    if lowered in _COMPUTE_VERSION_NAMES:
        why = f"'{bare}' conventionally holds the compute version (\"major.minor\")"
        return Convention("compute_version", why=why)
    if lowered in _PROPERTIES_NAMES:
        why = f"'{bare}' conventionally returns the device's properties"
        return Convention("properties", why=why)
    # A predicate's verb in a CamelCase name: a compiled library's `TargetIsSM120`.
    lowered = _snake(bare).lower().lstrip("_")
    verb = _PREDICATE_WORD.search(lowered)
    if verb is None:
        return None
    # What the verb says of the device comes after it: `target_is_volta`, not
    # `sm120_geometry_is_valid` (a geometry is valid; for sm120 kernels, whatever runs).
    lowered = lowered[verb.end() :]
    named = _named_generations(lowered, registry)
    if named is None:
        return None
    admits, rest = named
    if _OR_NEWER.match(rest):
        admits = _and_newer(admits, registry)
    return Convention("predicate", admits, f"name '{bare}' (naming convention)")


# What follows a generation's name that makes it a floor: `is_hopper_plus`,
# `is_sm90_or_later`, `supports_blackwell_and_newer`.
_OR_NEWER = re.compile(
    r"_?(?:plus|or_(?:newer|later|above|higher)|and_(?:newer|later|above|up|higher)|onwards?)"
    r"(?:_|$)"
)


def _named_generations(lowered: str, registry: Registry) -> tuple[frozenset[str], str] | None:
    """The generations a predicate's name names after its verb (an SM number, a gfx
    name, an AMD product, a family), and the rest of the name after that word."""
    sm = _SM_NAME.search(lowered)
    if sm:
        named = _sm_generations(sm.group(1), sm.group(2), registry)
        return named, lowered[sm.end(2) if sm.group(2) else sm.end(1) :]
    gfx = _GFX_NAME.search(lowered)
    if gfx:
        prefix = gfx.group(1)
        admits = frozenset(g.name for g in registry.generations if g.name.startswith(prefix))
        return admits, lowered[gfx.end(1) :]
    for product, gfx_name in _AMD_PRODUCTS.items():
        at = lowered.find(product)
        if at >= 0:
            admits = frozenset({gfx_name}) if gfx_name in registry else frozenset()
            return admits, lowered[at + len(product) :]
    for family, (vendor, majors) in _FAMILY_MAJORS.items():
        found = re.search(rf"(?:^|_){family}(?=_|$)", lowered)
        if found:
            exact = _EXACT_FAMILY.get(family)
            admits = frozenset(
                g.name
                for g in registry.generations
                if g.vendor == vendor and (g.capability == exact if exact else g.major in majors)
            )
            return admits, lowered[found.end() :]
    # The registry's other families (`is_cdna4`: AMD's, as the registry names them).
    for family in dict.fromkeys(g.family.lower() for g in registry.generations):
        if not family or family in _FAMILY_MAJORS or family not in lowered:
            continue
        found = re.search(rf"(?:^|_){re.escape(family)}(?=_|$)", lowered)
        if found:
            admits = frozenset(g.name for g in registry.generations if g.family.lower() == family)
            return admits, lowered[found.end() :]
    return None


def _and_newer(admits: frozenset[str], registry: Registry) -> frozenset[str]:
    """The named generations and every newer one of their vendor: a floor at the
    oldest named."""
    named = [registry.get(g) for g in admits]
    if not named or len({g.vendor for g in named}) != 1:
        return admits
    floor = min(g.capability for g in named)
    vendor = named[0].vendor
    return frozenset(
        g.name for g in registry.generations if g.vendor == vendor and g.capability >= floor
    )


def by_convention(ev: Evaluator, name: str) -> Any:
    """The value a name promises on the evaluator's generation, marked assumed; UNKNOWN
    when the name promises nothing."""
    convention = convention_for(name, ev.registry, ev.vocabulary)
    if convention is None or (convention.kind != "predicate" and another_backend(name)):
        # `torch.musa.get_device_properties(0)`: another accelerator's device, not the one
        # the name would promise (a predicate named by the project keeps its promise).
        return UNKNOWN
    ev.reads.assumed.add(convention.why)
    return _promised(ev, convention)


def _promised(ev: Evaluator, convention: Convention) -> Any:
    """What `convention` promises on the evaluator's generation, read from the device and
    traced so (replay.py)."""
    ev.reads.device = True
    value = replay.convention_value(convention, ev.generation)
    if ev.trace is not None:
        ev.trace.append((replay.CONVENTION, convention, value))
    return value


def _annotation_of(node: nodes.NodeNG, args: nodes.Arguments) -> nodes.NodeNG | None:
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    annotations = [*args.posonlyargs_annotations, *args.annotations, *args.kwonlyargs_annotations]
    return next((a for arg, a in zip(every, annotations, strict=False) if arg is node), None)


def _annotation_name(node: nodes.NodeNG, args: nodes.Arguments) -> str | None:
    annotation = _annotation_of(node, args)
    if annotation is None:
        return None
    text = _without_none(annotation.as_string().strip("'\""))
    return text.rsplit(".", 1)[-1]


def _annotated_target(ev: Evaluator, node: nodes.NodeNG, args: nodes.Arguments) -> Any | None:
    """A parameter annotated with TVM's `Target` class (the compile target TVM-based
    compilers pass from pass to pass, built from the device: TileLang's `determine_target`):
    the device's target, as `Target.current()` is taken to be, marked assumed. None for
    any other annotation."""
    found = _annotation_of(node, args)
    if not isinstance(found, (nodes.Name, nodes.Attribute)):
        return None
    cls = ev.value(found)
    if not isinstance(cls, ExternalRef) or cls.dotted not in tvm_device.TARGET_CLASSES:
        return None
    # Read as the idiom reads `Target.current()`, and traced so (replay.py).
    value = ev.idioms.call(tvm_device.CURRENT_TARGET, ev.generation, ())
    if ev.trace is not None:
        ev.trace.append((replay.INTRINSIC_CALL, tvm_device.CURRENT_TARGET, (), value))
    if value is UNKNOWN or value is NOT_MINE:
        return UNKNOWN
    name = getattr(node, "name", "")
    ev.reads.device = True
    ev.reads.assumed.add(f"{PARAMETER_ASSUMED}{name}: Target' (the device's compile target)")
    return value


# Past this many classes (the annotated one and its subclasses) a parameter annotated
# with a class is not read as an instance of one of them.
MAX_INSTANCE_CLASSES = 8


def _annotated_instance(ev: Evaluator, node: nodes.NodeNG, args: nodes.Arguments) -> Any | None:
    """A parameter annotated with a class of the project (`def is_ampere(board: Board)`,
    `Optional[Board]` and `Board | None` alike), which no caller read passes: an instance
    of that class or of one of its subclasses (subclasses.py), each read as its own
    option (values.OneOf), so that what `Board.__init__` sets from the device
    (`self.sm = major * 10 + minor`) is what `board.sm` is. Marked assumed where an
    attribute read through it depends on the device (attributes.py): a caller outside
    the project may pass anything. None for any other annotation, an enum or
    a class with more than MAX_INSTANCE_CLASSES such classes."""
    found = _unwrapped_optional(_annotation_of(node, args))
    if not isinstance(found, (nodes.Name, nodes.Attribute)):
        return None
    ref = ev.value(found)
    if not isinstance(ref, ClassRef) or classes.derives_from_enum(ev, ref.node):
        return None
    from gatecheck.semantics import subclasses  # imports conventions' importers

    options = (ref.node, *subclasses.subclasses(ev, ref.node))
    if len(options) > MAX_INSTANCE_CLASSES:
        return None
    name = getattr(node, "name", "")
    assumed = f"{PARAMETER_ASSUMED}{name}: {ref.node.name}' (an instance of the class)"
    if len(options) == 1:
        return InstanceRef(ref.node, assumed=assumed)
    return OneOf(tuple(InstanceRef(k, assumed=assumed) for k in options))


# The builtin types each kind of naming convention's value has: a parameter annotated
# with one of them (or a union holding one) is in the convention's form.
_FORMS = {
    "capability": frozenset({"tuple", "Tuple"}),
    "sm_version": frozenset({"int"}),
    "compute_version": frozenset({"str"}),
}


def _in_its_form(convention: Convention, annotation: nodes.NodeNG | None) -> bool:
    """Whether a parameter named for `convention` is annotated with a type its value has
    (`sm_version: int`, `compute_version: str | tuple[int, int]`, TileLang's
    get_target_arch, which parses either): the name's promise holds. Another type
    (`device_capability: int`, an encoding of its own) leaves it unknown."""
    if annotation is None:
        return False
    text = _without_none(annotation.as_string().strip("'\""))
    members = [m.strip() for m in text.split("|")]
    forms = _FORMS.get(convention.kind, frozenset())
    return any(m.split("[", 1)[0].rsplit(".", 1)[-1] in forms for m in members)


def _unwrapped_optional(annotation: nodes.NodeNG | None) -> nodes.NodeNG | None:
    """`X | None` and `Optional[X]` -> X; anything else as it is."""
    if isinstance(annotation, nodes.BinOp) and annotation.op == "|":
        sides = [annotation.left, annotation.right]
        rest = [s for s in sides if not (isinstance(s, nodes.Const) and s.value is None)]
        return rest[0] if len(rest) == 1 else annotation
    if (
        isinstance(annotation, nodes.Subscript)
        and isinstance(annotation.value, (nodes.Name, nodes.Attribute))
        and annotation.value.as_string().rsplit(".", 1)[-1] == "Optional"
    ):
        return annotation.slice
    return annotation


_OPTIONAL = re.compile(r"^(?:typing\.)?Optional\[(.*)\]$")


def _without_none(annotation: str) -> str:
    """`DeviceCapability | None` and `Optional[DeviceCapability]` -> `DeviceCapability`:
    the parameter may be None, and is that class where it is not. Any other union stays
    as it is (no one class)."""
    optional = _OPTIONAL.match(annotation)
    if optional is not None:
        return optional.group(1).strip()
    members = [m.strip() for m in annotation.split("|")]
    rest = [m for m in members if m != "None"]
    return rest[0] if len(members) > 1 and len(rest) == 1 else annotation


def _has_default(args: nodes.Arguments, name: str) -> bool:
    try:
        args.default_value(name)
    except Exception:  # astroid's NoDefault
        return False
    return True


# How an assumption about a parameter taken to be the device's begins (Admission.assumed):
# the audit reads it to tell a predicate given the device by its callers (audit/run.py).
PARAMETER_ASSUMED = "parameter '"


def is_parameter_assumption(assumption: str) -> bool:
    return assumption.startswith(PARAMETER_ASSUMED)


def parameter_by_convention(ev: Evaluator, node: nodes.NodeNG, args: nodes.Arguments) -> Any:
    """A parameter read where no call bound it (a condition inside the function): the
    value every caller in the project passes (callers.py); else, annotated with a
    capability class (`capability: DeviceCapability`) or named like one
    (`device_capability`, `sm_version`), it is taken to be the device's, marked assumed
    (the callers were not all read)."""
    name = getattr(node, "name", "")
    from_callers = callers.parameter_from_callers(ev, node, args)
    if isinstance(from_callers, callers.DeviceFromSomeCallers):
        ev.reads.assumed.add(f"{PARAMETER_ASSUMED}{name}' (the callers read pass the device's)")
        return from_callers.value
    if from_callers is not callers.NOT_FOUND:
        return from_callers
    if _has_default(args, name):
        filled = _filled_from_device(ev, name, args)
        if filled is not None:
            return filled
        return UNKNOWN  # the caller may leave the default (`device_capability=None`)
    annotation = _annotation_name(node, args)
    if annotation is not None:
        target = _annotated_target(ev, node, args)
        if target is not None:
            return target
        if annotation.endswith("Capability"):
            ev.reads.assumed.add(f"{PARAMETER_ASSUMED}{name}: {annotation}' (a capability class)")
            return _capability(ev)
        # The audit's reading (its callers searched, none binding it); `check` keeps
        # its answers: it reads no callers, so every annotated parameter it met was
        # searched for subclasses (0.10 -> 0.21 s of its evaluation on sglang 0.5.9).
        instance = _annotated_instance(ev, node, args) if ev.follow_callers else None
        if instance is not None:
            return instance
    convention = convention_for(name, ev.registry)
    if convention is None and _arch_text_parameter(ev, node, args, name):
        ev.reads.assumed.add(f"{PARAMETER_ASSUMED}{name}: str' (naming convention)")
        return _promised(ev, ARCH_TEXT)
    if convention is None or convention.kind == "predicate":
        return UNKNOWN
    if annotation is not None and not _in_its_form(convention, _annotation_of(node, args)):
        return UNKNOWN  # `device_capability: int`: some other encoding
    ev.reads.assumed.add(f"{PARAMETER_ASSUMED}{name}' (naming convention)")
    if convention.kind == "capability":
        return _capability(ev)
    if convention.kind == "compute_version":
        return _promised(ev, convention)
    ev.reads.device = True
    value = ev.generation.sm_version
    if ev.trace is not None:
        ev.trace.append((replay.SM_VERSION, value))
    return value


# A parameter named for the device's arch and annotated `str`, in a module that writes
# arch names out (`"sm_100a"`): the arch as such code spells it, one of its spellings
# (FlashInfer's CuTe DSL backends take `arch: str`, "sm_100a", from their callers and
# compare it with tuples of names; 815 such parameters in FlashInfer 0.7.4).
ARCH_TEXT = Convention("arch_text", why="'arch: str' conventionally holds the arch's name")
_ARCH_TEXT_NAMES = frozenset({"arch", "device_arch", "cuda_arch", "gpu_arch", "target_arch"})
# A quoted SM arch name, the tell that a module's `arch` texts are those.
_ARCH_LITERAL = re.compile(r"""["']sm_?\d{2,3}[af]?["']""")


def _arch_text_parameter(
    ev: Evaluator, node: nodes.NodeNG, args: nodes.Arguments, name: str
) -> bool:
    """`arch: str` (`str | None` too), named so, in a module spelling an SM arch name
    in quotes. A model's architecture is also called `arch`: one compared with "llama"
    would be false everywhere, so only modules writing arch names out read it so."""
    if name.lstrip("_").lower() not in _ARCH_TEXT_NAMES:
        return False
    annotation = _unwrapped_optional(_annotation_of(node, args))
    if not (isinstance(annotation, nodes.Name) and annotation.name == "str"):
        return False
    module = node.root()
    key = ("arch-literals", str(module.name))
    if key not in ev.facts:  # the module's text: the same for every generation
        path = ev.project.path_of(str(module.name))
        text = ev.project.text_of(path) if path is not None else None
        ev.facts[key] = text is not None and _ARCH_LITERAL.search(text) is not None
    return bool(ev.facts[key])


def _filled_from_device(ev: Evaluator, name: str, args: nodes.Arguments) -> Any | None:
    """`def is_supported(cls, compute_capability=None)` whose body begins `if
    compute_capability is None: ...; compute_capability = cap.to_int()` (or holds
    `read_device() if arch is None else arch`, flow.ternary_none_fill): the function
    reads the device's value where no caller gives one, so a value a caller gives stands
    for a device's too, in the same form. The parameter is then that value, marked
    assumed (the callers were not all read). None: no such fill, or one that reads
    nothing from the device (`if block is None: block = 64`)."""
    func = args.parent
    if not isinstance(func, nodes.FunctionDef) or not _defaults_to_none(args, name):
        return None
    found = flow.none_fill(func, name)
    choice = None
    if found is None:
        key = ("ternary-none-fill", id(func), name)
        if key not in ev.facts:  # the code's shape: found once for every generation
            ev.facts[key] = flow.ternary_none_fill(func, name)
        choice = ev.facts[key]
    if found is None and choice is None:
        return None
    with ev.tracking() as reads:
        # `arch = read_device() if arch is None else arch`: the same fill, in place
        value = ev.binding_value(found[1]) if found is not None else ev.eval(choice, None)
    if not reads.device or not identifies(value, ev.generation):
        return None
    ev.reads.assumed.add(f"{PARAMETER_ASSUMED}{name}' (its None default is the device's)")
    # None where the caller leaves the default (the `is None` test reads it so); past
    # the fill, flow.value_after reads the value.
    return NoneOr(value)


def identifies(value: Any, generation: Generation) -> bool:
    """Whether the fill gives the device's identity in some form (the capability, its
    SM number or major, a Triton target, a CuTe DSL arch; or one of a few options among
    which it is:
    `-1 if cap is None else cap.to_int()`), not a setting the device merely decides (a
    cluster size, whether to use PDL): a caller's value for those is a tuning choice,
    not another device."""
    options = value.options if isinstance(value, OneOf) else (value,)
    forms = {generation.capability, generation.sm_version, generation.capability[0]}
    for option in options:
        if isinstance(option, bool):
            continue
        if isinstance(option, (TritonTarget, CuteArch)):
            return True
        # Compared, not hashed: a tuple may hold a dict (`(route, {"arch": ...})`).
        if isinstance(option, (tuple, int)) and any(option == form for form in forms):
            return True
        if isinstance(option, str) and option in _spelled_forms(generation):
            return True
    return False


def _spelled_forms(generation: Generation) -> frozenset[str]:
    """The device's identity spelled as text: TVM's compute version ("9.0": TileLang's
    `compute_version = tvm.cuda(0).compute_version` under `if compute_version is None`),
    the SM number ("90") and an arch name ("sm_90", "sm_90a", "sm_100f")."""
    major, minor = generation.capability[:2]
    return frozenset({f"{major}.{minor}", *replay.arch_spellings(generation)})


def _defaults_to_none(args: nodes.Arguments, name: str) -> bool:
    try:
        default = args.default_value(name)
    except Exception:  # astroid's NoDefault
        return False
    return isinstance(default, nodes.Const) and default.value is None


# An attribute read off a parameter nothing else says anything of (its callers not all
# read), under one of these names: a device record's capability (FlashInfer's
# b12x `device.identity.compute_capability`, a dataclass field filled from
# `get_device_properties`), as a parameter so named is (parameter_by_convention).
_CAPABILITY_ATTRIBUTES = frozenset({"compute_capability", "device_capability"})
ATTRIBUTE_ASSUMED = "attribute '."


def reads_a_parameter(node: nodes.NodeNG) -> bool:
    """`node` reads a parameter of its function (`majors`, `cfg.archs`, `table[k]`)."""
    while isinstance(node, (nodes.Attribute, nodes.Subscript)):
        node = node.value if isinstance(node, nodes.Subscript) else node.expr
    if not isinstance(node, nodes.Name):
        return False
    try:
        _scope, found = node.lookup(node.name)
    except Exception:
        return False
    return any(isinstance(b.parent, nodes.Arguments) for b in found)


def attribute_by_convention(ev: Evaluator, name: str) -> Any:
    """`device.compute_capability` with `device` an unknown parameter (or read off one:
    `device.identity.compute_capability`): the device's capability, marked assumed
    (its encoding read off what it is compared with: AssumedCapability); UNKNOWN for
    any other name."""
    if name.lstrip("_") not in _CAPABILITY_ATTRIBUTES:
        return UNKNOWN
    ev.reads.assumed.add(f"{ATTRIBUTE_ASSUMED}{name}' (naming convention: the device's)")
    return _capability(ev)


def predicate_attribute(ev: Evaluator, node: nodes.Attribute) -> Any:
    """`current_platform().is_hopper`, `_is_blackwell = plat.is_blackwell` with
    `current_platform` imported from a package outside the scanned roots (tokenspeed's
    platform object): no class to read the property from, so what its name promises as
    a predicate (is_/has_/supports_/use_ and a generation), marked assumed, as a call
    `current_platform().is_hopper()` is (by_convention); UNKNOWN for any other name or
    receiver."""
    convention = convention_for(node.attrname, ev.registry, ev.vocabulary)
    if convention is None or convention.kind != "predicate":
        return UNKNOWN
    if not _from_outside(ev, node.expr, _OUTSIDE_DEPTH):
        return UNKNOWN
    ev.reads.assumed.add(f"{ATTRIBUTE_ASSUMED}{node.attrname}' ({convention.why})")
    return _promised(ev, convention)


# How many plain assignments are followed back from a receiver (`p = current_platform()`
# then `flag = p.is_hopper`).
_OUTSIDE_DEPTH = 2


def _from_outside(ev: Evaluator, node: nodes.NodeNG, depth: int) -> bool:
    """`node` is made by a call of, or read off, a name from outside the scanned roots
    (`current_platform()`, `ext.platform().info`), directly or through a name assigned
    once from such an expression."""
    while isinstance(node, (nodes.Call, nodes.Attribute, nodes.Subscript)):
        node = (
            node.func
            if isinstance(node, nodes.Call)
            else (node.value if isinstance(node, nodes.Subscript) else node.expr)
        )
    if not isinstance(node, nodes.Name):
        return False
    if isinstance(ev.eval(node, None), ExternalRef):
        return True
    if depth == 0:
        return False
    value = single_binding(node, any_scope=True)
    return value is not None and _from_outside(ev, value, depth - 1)


def _capability(ev: Evaluator) -> Capability:
    ev.reads.device = True
    value = AssumedCapability(ev.generation.capability)
    if ev.trace is not None:
        ev.trace.append((replay.CAPABILITY, value))
    return value
