"""What a branch does to the feature it sits under: leaves without it (raise, `return False`,
`return False, "reason"`, `sys.exit`, `pytest.skip`, `self.log_and_exit(...)`), switches it off
(a flag set to False/None or through `.set(False)`, a fallback chosen, a reason string
returned from a `*_reason` / `check_*` helper or from a function that otherwise returns
None, a warning then anything), or nothing a feature needs (it only logs or
picks a message, or it tunes numbers with a generic fallback; in the audit, it only
asserts). Each idiom is one small
function; `branch_disables` is their sum."""

from __future__ import annotations

import re
from collections.abc import Sequence

from astroid import nodes

from gatecheck.loading.trees import own_nodes

# Calls that end the run, the process or the test: the feature is not reached after them.
EXIT_CALLS = frozenset({"exit", "_exit", "abort", "skip", "skipTest", "xfail", "fail"})
_EXIT_SUFFIX = "_and_exit"  # self.log_and_exit(...), print_and_exit(...)
# A helper whose answer is a reason (a string) when the feature cannot be used.
REASON_HELPER = re.compile(
    r"(^_*(check|validate|verify|why)_|_reasons?$|^_*unsupported|_unsupported$)", re.IGNORECASE
)
# Words that name a fallback rather than the feature (`backend = "torch_sdpa"`, `NAIVE`).
FALLBACK_WORDS = frozenset({"fallback", "sdpa", "naive", "native", "eager", "reference", "unfused"})
# A warning that says the feature is off here (then whatever follows is the fallback).
DISABLE_MESSAGE = re.compile(
    r"fall(ing|s)?[ _-]?back|not supported|unsupported|not available|disabl"
    r"|only supported\b|\b(will )?default(s|ing)? to\b",  # "... default to dequantizing"
    re.IGNORECASE,
)
LOG_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}
    | {"warning_once", "info_once", "warn_once", "debug_once", "print"}
)
# Collections of what is wrong (`unsupported.append(reason)`).
_COLLECT = frozenset({"append", "add", "extend", "insert"})
_PROBLEM_NAME = re.compile(r"unsupported|error|problem|issue|reason|missing|failure|skip", re.I)
# Names that hold a message rather than a choice.
_MESSAGE_NAME = re.compile(r"msg|message|reason|hint|warn|text|err|desc|note|explanation", re.I)
# Names that switch a feature off when set True (`disable_cuda_graph = True`).
_OFF_FLAG = re.compile(r"^_*(disable|skip|no|avoid)_", re.IGNORECASE)


def call_name(node: nodes.NodeNG) -> str:
    func = node.func if isinstance(node, nodes.Call) else node
    if isinstance(func, nodes.Attribute):
        return str(func.attrname)
    if isinstance(func, nodes.Name):
        return str(func.name)
    return ""


def records_problem(stmt: nodes.NodeNG) -> bool:
    """`unsupported.append(...)`, `self.errors.add(...)`: the branch records why not."""
    if not (isinstance(stmt, nodes.Expr) and isinstance(stmt.value, nodes.Call)):
        return False
    func = stmt.value.func
    if not (isinstance(func, nodes.Attribute) and func.attrname in _COLLECT):
        return False
    return bool(_PROBLEM_NAME.search(call_name(func.expr)))


def exits(stmt: nodes.NodeNG) -> bool:
    """`raise`, or a call that ends the process/test: `sys.exit(1)`, `pytest.skip(...)`,
    `self.log_and_exit(...)`."""
    if isinstance(stmt, nodes.Raise):
        return True
    if isinstance(stmt, nodes.Expr) and isinstance(stmt.value, nodes.Call):
        name = call_name(stmt.value)
        return name in EXIT_CALLS or name.endswith(_EXIT_SUFFIX)
    return False


def is_log_call(stmt: nodes.NodeNG) -> bool:
    """`logger.warning(...)`, `warnings.warn(...)`, `print(...)`: reports, changes nothing."""
    if not (isinstance(stmt, nodes.Expr) and isinstance(stmt.value, nodes.Call)):
        return False
    return call_name(stmt.value) in LOG_METHODS


def says_disabled(stmt: nodes.NodeNG) -> bool:
    """A log call whose message says the feature is off or replaced here."""
    return is_log_call(stmt) and any(
        DISABLE_MESSAGE.search(text) for text in strings_in(stmt.value)
    )


def strings_in(node: nodes.NodeNG) -> list[str]:
    """String constants in an expression (f-string pieces included)."""
    return [str(c.value) for c in node.nodes_of_class(nodes.Const) if isinstance(c.value, str)]


def _falsy_constant(node: nodes.NodeNG | None) -> bool:
    return node is None or (isinstance(node, nodes.Const) and not node.value)


def _is_message(node: nodes.NodeNG) -> bool:
    """A non-empty string: a constant, an f-string, `"..." % x` or `"...".format(x)`."""
    if isinstance(node, nodes.Const):
        return isinstance(node.value, str) and bool(node.value)
    if isinstance(node, nodes.JoinedStr):
        return True
    if isinstance(node, nodes.BinOp) and node.op == "%":
        return _is_message(node.left)
    if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute):
        return node.func.attrname == "format" and _is_message(node.func.expr)
    return False


def names_fallback(node: nodes.NodeNG) -> bool:
    """A value named like a fallback: `"torch_sdpa"`, `Backend.NAIVE`, `FallbackImpl()`."""
    if isinstance(node, nodes.Call):
        node = node.func
    if isinstance(node, nodes.Const) and isinstance(node.value, str):
        text = node.value
    elif isinstance(node, (nodes.Name, nodes.Attribute)):
        text = call_name(node)
    else:
        return False
    words = {w.lower() for w in re.split(r"[^A-Za-z0-9]+|(?<=[a-z])(?=[A-Z])", text) if w}
    return bool(words & FALLBACK_WORDS)


def in_reason_helper(stmt: nodes.NodeNG) -> bool:
    scope = stmt.scope()
    return isinstance(scope, nodes.FunctionDef) and bool(REASON_HELPER.search(str(scope.name)))


def returns_off(ret: nodes.Return) -> bool:
    """`return`, `return None/False/0`, `return False, "reason"`, a reason string from a
    `*_reason`/`check_*` helper, or a value named like a fallback."""
    value = ret.value
    if _falsy_constant(value):
        return True
    assert value is not None
    if isinstance(value, nodes.Tuple) and value.elts and _falsy_constant(value.elts[0]):
        return True
    if _is_message(value) and (in_reason_helper(ret) or _problem_or_none(ret)):
        return True
    return names_fallback(value)


def _problem_or_none(ret: nodes.Return) -> bool:
    """A sentence returned by a function whose other answers are None or sentences too,
    None among them (an explicit `return None` or falling off the end): it says what is
    wrong, or None when nothing is (`def capability_error(dev) -> str | None`, vLLM's
    `supports_combination` returning "sink not supported on compute capability < 9.0"),
    whatever it is called. A word (`return "fa3"`) is a choice, not a reason."""
    if not _sentence(ret.value):
        return False
    scope = ret.scope()
    if not isinstance(scope, nodes.FunctionDef):
        return False
    others = [r for r in own_nodes(scope.body, nodes.Return) if r is not ret]
    if not all(_is_none(r.value) or _sentence(r.value) for r in others):
        return False
    last = scope.body[-1] if scope.body else None
    falls_off = not isinstance(last, (nodes.Return, nodes.Raise))
    return falls_off or any(_is_none(r.value) for r in others)


def _sentence(node: nodes.NodeNG | None) -> bool:
    return (
        node is not None
        and _is_message(node)
        and any(any(c.isspace() for c in text) for text in strings_in(node))
    )


def _is_none(node: nodes.NodeNG | None) -> bool:
    return node is None or (isinstance(node, nodes.Const) and node.value is None)


def switches_off(assign: nodes.NodeNG, flags: set[str] | None) -> bool | None:
    """For the audit (no flags): any name set to False/None or to a fallback, or a
    `disable_x`/`skip_x` set True, switches something off (True); a name set True switches
    it on (False). For `check` (the rule's flags): only one of its flags set to False."""
    if not isinstance(assign, (nodes.Assign, nodes.AnnAssign)) or assign.value is None:
        return None
    targets = assign.targets if isinstance(assign, nodes.Assign) else [assign.target]
    names = [_target_name(t) for t in targets]
    value = assign.value
    if flags is not None:
        off = isinstance(value, nodes.Const) and value.value is False
        return True if off and any(n in flags for n in names if n) else None
    if isinstance(value, nodes.Const) and value.value is True:
        return any(n and _OFF_FLAG.match(n) for n in names)
    if isinstance(value, nodes.Const) and value.value in (False, None):
        return any(names)
    if names_fallback(value) and any(names):
        return True
    return None


def _target_name(target: nodes.NodeNG) -> str | None:
    if isinstance(target, nodes.AssignAttr):
        return str(target.attrname)
    if isinstance(target, nodes.AssignName):
        return str(target.name)
    return None


def branch_exits(body: Sequence[nodes.NodeNG]) -> bool:
    """A branch that leaves without the feature (an early exit): its first statement that
    is not a log call raises, exits, or returns an off value."""
    for stmt in body:
        if exits(stmt):
            return True
        if isinstance(stmt, nodes.Return):
            return returns_off(stmt)
    return False


def returns_before_the_work(statement: nodes.NodeNG) -> bool:
    """`if not is_blackwell(): return True` at the top of a function that goes on to do
    something (`set_kernel_version(4)`, `self.kernel = ...`) and answers `True` after it
    too: the answer says nothing, the early return skips the work, so the feature is
    where the condition is false. A predicate (the rest only computes its answer) keeps
    the usual reading."""
    if not (
        isinstance(statement, nodes.If)
        and not statement.orelse
        and len(statement.body) == 1
        and isinstance(statement.body[0], nodes.Return)
        and _true(statement.body[0].value)
        and isinstance(statement.parent, nodes.FunctionDef)
    ):
        return False
    rest: list[nodes.NodeNG] = []
    following = statement.next_sibling()
    while following is not None:
        rest.append(following)
        following = following.next_sibling()
    if not any(_true(r.value) for r in own_nodes(rest, nodes.Return)):
        return False
    return any(True for _ in own_nodes(rest, nodes.AssignAttr)) or any(
        _does_work(n) for n in own_nodes(rest, nodes.Expr)
    )


def done_then_cleared(statement: nodes.NodeNG) -> bool:
    """`if use_l2norm and major in (9, 10, 12): q, k = normalize(q, k); use_l2norm = False`:
    the branch does the work on its own values (names rebound from a call they are passed
    to) and then clears a switch its condition tests, so it is not done twice: the
    feature is where the condition is true, the clearing is no switch-off."""
    if not isinstance(statement, nodes.If) or statement.orelse:
        return False
    tested = {str(n.name) for n in statement.test.nodes_of_class(nodes.Name)}
    worked = False
    for stmt in statement.body:
        if _transforms(stmt):
            worked = True
            continue
        if is_log_call(stmt) or isinstance(stmt, (nodes.Import, nodes.ImportFrom)):
            continue
        cleared = (
            isinstance(stmt, nodes.Assign)
            and isinstance(stmt.value, nodes.Const)
            and stmt.value.value is False
            and all(isinstance(t, nodes.AssignName) and t.name in tested for t in stmt.targets)
        )
        return worked and cleared
    return False


def resets_computed(statement: nodes.NodeNG) -> bool:
    """`split_k = max(1, grid // tiles)` then `if not is_sm120(): split_k = 1`: the branch
    only puts back the neutral number (0 or 1) of names the block computed just before,
    so what was computed is kept where the condition is false, and switched off where it
    is true. Numbers picked in a branch are tuning (`_tunes`); a computed value undone is
    not."""
    if not isinstance(statement, nodes.If) or statement.orelse:
        return False
    reset: set[str] = set()
    for stmt in statement.body:
        if is_log_call(stmt):
            continue
        if not (
            isinstance(stmt, nodes.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], nodes.AssignName)
            and isinstance(stmt.value, nodes.Const)
            and stmt.value.value.__class__ is int
            and stmt.value.value in (0, 1)
        ):
            return False
        reset.add(str(stmt.targets[0].name))
    if not reset:
        return False
    computed: set[str] = set()
    earlier = statement.previous_sibling()
    while earlier is not None:
        if isinstance(earlier, (nodes.Assign, nodes.AnnAssign)) and earlier.value is not None:
            targets = earlier.targets if isinstance(earlier, nodes.Assign) else [earlier.target]
            for target in targets:
                if isinstance(target, nodes.AssignName) and not is_numeric(earlier.value):
                    computed.add(str(target.name))
        earlier = earlier.previous_sibling()
    return reset <= computed


def _transforms(stmt: nodes.NodeNG) -> bool:
    """`q, k = normalize(q, k)`: names rebound from a call they are passed to."""
    if not (isinstance(stmt, nodes.Assign) and isinstance(stmt.value, nodes.Call)):
        return False
    passed = {str(a.name) for a in stmt.value.args if isinstance(a, nodes.Name)}
    targets = [n for t in stmt.targets for n in t.nodes_of_class(nodes.AssignName)]
    return bool(targets) and all(str(t.name) in passed for t in targets)


def _true(node: nodes.NodeNG | None) -> bool:
    return isinstance(node, nodes.Const) and node.value is True


def _does_work(node: nodes.Expr) -> bool:
    """A call made for its effect (not a log call, not an exit)."""
    return isinstance(node.value, nodes.Call) and not is_log_call(node) and not exits(node)


def branch_disables(body: Sequence[nodes.NodeNG], flags: set[str] | None = None) -> bool:
    """A branch that bails out or switches the feature off (see the module docstring). With
    `flags` (check's rule flags), only those flags count as switches."""
    if not body:
        return False
    if flags is None and _tunes(body):
        return False  # `m_block = 64; swap_ab = False`: numbers picked, nothing lost
    warned = False
    for stmt in body:
        if exits(stmt):
            return True
        if flags is None and records_problem(stmt):
            return True
        if flags is None and says_disabled(stmt):
            warned = True
            continue
        if isinstance(stmt, nodes.Return):
            if flags is not None:  # check: as it always read returns
                return _falsy_constant(stmt.value)
            return warned or returns_off(stmt)
        if flags is None and setter_off(stmt):
            return True
        switched = switches_off(stmt, flags)
        if switched is not None and (switched or flags is None):
            return switched or warned
    return False


def only_asserts(body: Sequence[nodes.NodeNG]) -> bool:
    """A branch that only asserts (and logs), doing no work of its own: `if arch in (80,
    90): assert self.num_threads == mma.size`. Not a branch that goes on to do work
    after its assert (`if is_sm90(): assert head_dim <= 256; run_fa3()`)."""
    asserts = [s for s in body if isinstance(s, nodes.Assert)]
    return bool(asserts) and all(isinstance(s, nodes.Assert) or is_log_call(s) for s in body)


def refuses_options(body: Sequence[nodes.NodeNG]) -> bool:
    """A branch whose only work is refusing options its function's caller chose: on the
    generations that take it they are refused, as under `if <test> and <option>: raise`
    (`if arch // 10 not in [10, 11]: assert deterministic is False, "... for now"`, or
    `if deterministic: raise ValueError(...)` nested; flash-attn-4's backward before
    4.0.0b5). An option is a parameter of the function, or an attribute of one
    (`args.deterministic`, `self.deterministic`); asserted off (`not x`, `x is False`,
    `x is None`, `x == False`) or tested by an `if` that raises. Not an invariant of
    values the function derives (`assert self.num_threads == mma.size`: only_asserts)."""
    refusals = 0
    for stmt in body:
        if isinstance(stmt, nodes.Assert):
            if not _asserted_off(stmt.test):
                return False
            refusals += 1
        elif isinstance(stmt, nodes.If):
            if not option_refusal(stmt):
                return False
            refusals += 1
        elif not is_log_call(stmt):
            return False
    return refusals > 0


def option_refusal(stmt: nodes.If) -> bool:
    """`if deterministic: raise ValueError(...)`: options of the caller's refused."""
    return not stmt.orelse and _options_on(stmt.test) and branch_exits(stmt.body)


def _asserted_off(test: nodes.NodeNG) -> bool:
    if isinstance(test, nodes.UnaryOp) and test.op == "not":
        return _option(test.operand)
    if isinstance(test, nodes.Compare) and len(test.ops) == 1:
        op, right = test.ops[0]
        off = op in ("is", "==") and isinstance(right, nodes.Const) and right.value in (False, None)
        return off and _option(test.left)
    return False


def _options_on(test: nodes.NodeNG) -> bool:
    """`x`, `x and y`, `x is not None`, `x is True`: true when the options are on."""
    if isinstance(test, nodes.BoolOp):
        return all(_options_on(v) for v in test.values)
    if isinstance(test, nodes.Compare) and len(test.ops) == 1:
        op, right = test.ops[0]
        on = (op == "is not" and isinstance(right, nodes.Const) and right.value is None) or (
            op in ("is", "==") and isinstance(right, nodes.Const) and right.value is True
        )
        return on and _option(test.left)
    return _option(test)


def _option(node: nodes.NodeNG) -> bool:
    """A parameter of the enclosing function, or an attribute of one."""
    while isinstance(node, nodes.Attribute):
        node = node.expr
    if not isinstance(node, nodes.Name):
        return False
    function = node.scope()
    return isinstance(function, nodes.FunctionDef) and node.name in function.argnames()


def setter_off(stmt: nodes.NodeNG) -> bool:
    """`envs.SGLANG_OPT_FP8_GEMM.set(False)`, `setattr(args, "enable_x", False)`: a switch
    turned off through a call rather than an assignment."""
    if not (isinstance(stmt, nodes.Expr) and isinstance(stmt.value, nodes.Call)):
        return False
    call = stmt.value
    if call.keywords:
        return False
    if isinstance(call.func, nodes.Attribute) and call.func.attrname == "set":
        value = call.args[0] if len(call.args) == 1 else None
    elif isinstance(call.func, nodes.Name) and call.func.name == "setattr":
        value = call.args[2] if len(call.args) == 3 else None
    else:
        return False
    return isinstance(value, nodes.Const) and value.value is False


def _tunes(body: Sequence[nodes.NodeNG]) -> bool:
    return any(
        isinstance(stmt, (nodes.Assign, nodes.AnnAssign))
        and stmt.value is not None
        and is_numeric(stmt.value)
        for stmt in body
    )


def only_reports(branches: Sequence[Sequence[nodes.NodeNG]]) -> bool:
    """Every branch only logs, passes, or picks a message (`msg = "..."`): whichever way
    the condition goes, no feature is gained or lost."""
    reported = False
    for body in branches:
        for stmt in body:
            if is_log_call(stmt):
                reported = True
            elif isinstance(stmt, nodes.Pass):
                continue
            elif isinstance(stmt, (nodes.Assign, nodes.AnnAssign)) and stmt.value is not None:
                if not (_is_message(stmt.value) and _names_a_message(stmt)):
                    return False
                reported = True
            else:
                return False
    return reported


def _names_a_message(assign: nodes.Assign | nodes.AnnAssign) -> bool:
    """`msg = ...`, `self.reason = ...`: a message, not a kernel or backend picked by name."""
    targets = assign.targets if isinstance(assign, nodes.Assign) else [assign.target]
    names = [_target_name(t) or "" for t in targets]
    return bool(names) and all(_MESSAGE_NAME.search(n) for n in names)


def tunes_numbers(branches: Sequence[Sequence[nodes.NodeNG]], has_fallback: bool) -> bool:
    """Per-GPU tuning: every branch only sets or returns numbers (block sizes, split
    counts, tables of them), and a generic fallback exists for the other generations."""
    if not has_fallback or not branches:
        return False
    values: list[nodes.NodeNG] = []
    for body in branches:
        if not body:
            return False
        for stmt in body:
            if isinstance(stmt, (nodes.Assign, nodes.AnnAssign, nodes.Return, nodes.AugAssign)):
                if stmt.value is None or not is_numeric(stmt.value):
                    return False
                values.append(stmt.value)
            elif not isinstance(stmt, nodes.Pass):
                return False
    # `return 1` / `return 0` is an answer (on/off), not a tuned number.
    return not all(isinstance(v, nodes.Const) and v.value in (0, 1) for v in values)


def only_adjusts(branches: Sequence[Sequence[nodes.NodeNG]]) -> bool:
    """Every statement changes a number it already had by a number (`opts["BLOCK_M"] //=
    2`): the value before is the fallback, what the other generations keep."""
    return bool(branches) and all(
        body and all(isinstance(s, nodes.AugAssign) and is_numeric(s.value) for s in body)
        for body in branches
    )


def is_numeric(node: nodes.NodeNG) -> bool:
    """A number, or a tuple/list/dict of numbers, or arithmetic on them (`64 * 1024`)."""
    if isinstance(node, nodes.Const):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, nodes.UnaryOp):
        return is_numeric(node.operand)
    if isinstance(node, nodes.BinOp):
        return is_numeric(node.left) and is_numeric(node.right)
    if isinstance(node, (nodes.Tuple, nodes.List)):
        return bool(node.elts) and all(is_numeric(e) for e in node.elts)
    if isinstance(node, nodes.Dict):
        return bool(node.items) and all(is_numeric(v) for _, v in node.items)
    return False
