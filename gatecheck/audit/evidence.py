"""What the words next to a gate say about it: comments around the condition and in its
branch, the strings of the branch (raise and log messages, returned reasons) and the
enclosing function's docstring. Each rule reads one sentence and gives a reason or None:
the exclusion is documented (not supported there, the hardware lacks it, a workaround, a
path validated or measured on one generation), it is a gap with a TODO, or the message
asks for more than the gate admits ("requires SM90+")."""

from __future__ import annotations

import dataclasses
import io
import re
import tokenize
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from astroid import nodes

from gatecheck.config.model import Generation
from gatecheck.gates.branches import refuses_options

_COMMENT_LINES_BEFORE = 3  # comments just above the condition speak of it
_BODY_LINES = 6  # and those in the first lines of its branch
_SNIPPET = 90


@dataclass(frozen=True)
class Words:
    """One sentence next to a gate, and where it is."""

    line: int
    kind: str  # "comment", "message" or "docstring"
    text: str
    end: int = 0  # last line of a comment block
    # A message in the branch an `if` takes when its condition holds: it speaks of the
    # circumstance the condition tests ("Cannot use FA3 on Blackwell": the branch is
    # for Blackwell).
    taken_when_true: bool = False
    # A docstring of a function holding no other gate: it can only speak of this one.
    sole: bool = False

    def quoted(self) -> str:
        text = " ".join(self.text.split())
        short = text if len(text) <= _SNIPPET else text[: _SNIPPET - 3] + "..."
        return f"the {self.kind} at line {self.line}: '{short}'"


_NEGATIVE = re.compile(
    r"not supported|unsupported|n[o']t (yet )?support|does not|doesn'?t|do not|don'?t|cannot"
    r"|can'?t|\black|\blacks\b|lacking|no support|not available|unavailable|not work"
    r"|incompatible|not compatible|without|disabled?\b|exclud|\bexcept\b|isn'?t|is not"
    r"|are not|aren'?t|\bfails?\b|broken|missing|\bnor\b|\bno\b",
    re.IGNORECASE,
)
# Hardware a kernel needs that only some generations have: naming it is the reason.
# How comments spell each instruction-set feature of the registry's `hardware` lists
# (config/schema.HARDWARE).
HARDWARE_WORDS: dict[str, re.Pattern[str]] = {
    feature: re.compile(pattern, re.IGNORECASE)
    for feature, pattern in {
        "tcgen05": r"tcgen05",
        "tmem": r"\btmem\b",
        "umma": r"\bumma\b",
        "2cta": r"\b2-?cta\b",
        "wgmma": r"wgmma",
        "tma-multicast": r"tma multicast",
        "dsmem": r"dsmem",
        "cvt.rs": r"cvt\.rs",
        "mma.sp": r"mma\.sp",
    }.items()
}
_WORKAROUND = re.compile(
    r"work[- ]?around|known issue|\bbugs?\b|\bhangs?\b|deadlock|\bcrash|illegal memory"
    r"|numerical(ly)? (issue|error|instab)|accuracy (issue|drop|problem|loss)|regression",
    re.IGNORECASE,
)
_VALIDATED = re.compile(
    r"\bvalidated\b|\bverified\b|\bmeasured\b|\bbenchmarked\b|\btested (only )?(on|with)\b"
    r"|\bonly tested\b|\btuned (for|on)\b|\bfor (kernel|performance|perf|launch) tuning\b",
    re.IGNORECASE,
)
# A validation said not to have happened: untested, not a reason (vLLM 0.31's "the wider
# CUDA range was not validated", widened to sm12x a release later).
_UNTESTED = re.compile(
    r"(?:\bnot|\bnever|n't)\s+(?:been\s+|yet\s+|really\s+)*"
    r"(?:validated|verified|tested|benchmarked|tuned)\b|\buntested\b|\bunvalidated\b"
    r"|\bunverified\b",
    re.IGNORECASE,
)
_SLOWER = re.compile(r"\bslower (than|on)\b", re.IGNORECASE)
_TODO = re.compile(
    r"\bTODO\b|\bFIXME\b|\bXXX\b|not yet|\byet\b|will (be )?support|coming soon|in the future"
    r"|to be (added|enabled|supported)|\bpending\b"
    r"|needs? (a |an |this |the )?(\w+ )?(fix|update|upgrade|patch)\b|\bonce\b.*\bsupport"
    r"|\bfor now\b|\bnow\b[^.;]*\bonly\b",
    re.IGNORECASE,
)
# Words about the hardware, for a docstring (which speaks of the whole function).
_ARCH_WORDS = re.compile(
    r"\bsm[_ ]?\d|\barch|\bgpus?\b|capabilit|\bdevices?\b|blackwell|hopper|ampere|\bada\b",
    re.IGNORECASE,
)
_ANY_SM = re.compile(r"\bsm[_ ]?\d{2,3}[a-z]?\b|\bsm[_ ]?\d{1,2}\.?x\b", re.IGNORECASE)
_ABOUT_SUPPORT = re.compile(r"support|enable|extend|add|\bsm_?\d|arch|gpu|blackwell", re.I)
# "requires SM90+", "SM100 or newer", ">= sm_80", "compute capability >= 9.0".
_AT_LEAST = re.compile(
    r"\bsm[_ ]?(?P<a>\d{2,3})[a-z]?\s*\+"
    r"|\bsm[_ ]?(?P<b>\d{2,3})[a-z]?\s+(?:or|and)\s+(?:newer|later|above|higher)"
    r"|>=\s*sm[_ ]?(?P<c>\d{2,3})"
    r"|capability\s*>=?\s*(?P<d>\d{1,2})\.(?P<dm>\d)",
    re.IGNORECASE,
)


def generation_mention(generation: Generation) -> re.Pattern[str]:
    """sm120, sm_120, SM120a, sm12x, SM12.x, sm_12 (not sm_120 for sm121), its products."""
    major, minor = generation.capability
    spellings = [
        rf"\bsm[_ ]?{major}{minor}[a-z]?\b",
        rf"\bsm[_ ]?{major}\.?x\b",
        rf"\bsm[_ ]?{major}\b",
        rf"\bsm[_ ]?{major}\.{minor}\b",
    ]
    spellings += [re.escape(p) for p in generation.products if len(p) > 3]
    return re.compile("|".join(spellings), re.IGNORECASE)


def sentences(words: Words) -> Iterator[Words]:
    for part in re.split(r"(?<=[.;!?])\s+|\n\s*\n", words.text):
        if part.strip():
            yield dataclasses.replace(words, text=part)


# Rules: (sentence, audited generation) -> a reason, or None.
Rule = Callable[[Words, Generation], "str | None"]


def says_unsupported_here(words: Words, generation: Generation) -> str | None:
    """'SM120 does not support it', 'not supported on the SM12x family'."""
    if generation_mention(generation).search(words.text) and _NEGATIVE.search(words.text):
        return f"documented: {words.quoted()}"
    return None


def names_missing_hardware(words: Words, generation: Generation) -> str | None:
    """'PrimsTS emits TCGEN05 instructions', 'needs TMA multicast': a feature the
    generation lacks (the registry's `hardware`). One it has explains nothing of why it is
    left out ('2-CTA: remap into a TMEM view' on a gate admitting sm100 and sm103, audited
    for sm110, which has both)."""
    named = [f for f, spelled in HARDWARE_WORDS.items() if spelled.search(words.text)]
    if any(f not in generation.hardware for f in named):
        return f"a hardware requirement: {words.quoted()}"
    return None


def names_hardware(identifiers: Iterable[str], generation: Generation) -> str | None:
    """`use_2cta_instrs = arch // 10 in [10, 11] and ...`, `if self.use_tcgen05:`: a name
    in the gate, or the one it is kept under, spells a feature the generation lacks (the
    words of names_missing_hardware, read in the name's parts)."""
    for identifier in identifiers:
        spelled = " ".join(part for part in identifier.split("_") if part)
        if names_missing_hardware(Words(0, "name", spelled), generation) is not None:
            return f"a hardware requirement: its name '{identifier}'"
    return None


def calls_it_a_workaround(words: Words, generation: Generation) -> str | None:
    """'a workaround for a known issue'; not 'a regression on sm100' (another
    generation's trouble says nothing about this one)."""
    others = [m for m in _ANY_SM.findall(words.text) if not generation_mention(generation).match(m)]
    if _WORKAROUND.search(words.text) and not others:
        return f"a workaround: {words.quoted()}"
    return None


def says_validated_only(words: Words, generation: Generation) -> str | None:
    if _VALIDATED.search(words.text) and not _UNTESTED.search(words.text):
        return f"validated or tuned where it is enabled: {words.quoted()}"
    return None


def says_slower_elsewhere(words: Words, generation: Generation) -> str | None:
    """ "(It is slower than Marlin W4A16 on other devices)": a choice measured on other
    majors. Not where the words name a part of the generation's own major (`SM120` for
    sm121): a sibling left out of a measured list is the exact-minor gap."""
    if not _SLOWER.search(words.text):
        return None
    major = generation.major
    own = re.compile(rf"\bsm[_ ]?{major}(\d|x)", re.IGNORECASE)
    if own.search(words.text):
        return None
    return f"validated or tuned where it is enabled (slower elsewhere): {words.quoted()}"


def _lacks_only_elsewhere(text: str, generation: Generation) -> bool:
    """A sentence that says something is missing on other generations, naming only
    them: what is to do there says nothing of this one."""
    named = _ANY_SM.findall(text)
    if not named or not _NEGATIVE.search(text):
        return False
    return not any(generation_mention(generation).match(n) for n in named)


# A user-facing message that says the limit is for now: "currently requires SM90", "not
# yet supported on SM120".
_MESSAGE_TODO = re.compile(
    r"\bnot yet\b|\bcurrently\b|\bfor now\b|\bat the moment\b|coming soon"
    r"|will (be )?support|in the future",
    re.IGNORECASE,
)


def has_todo(words: Words, generation: Generation) -> str | None:
    """'TODO: enable on SM120', 'not supported yet', 'needs a triton fix'; in a
    message only a limit said to be for now ('currently requires SM90'), never one with
    its reason (missing hardware, a workaround)."""
    if words.kind == "message":
        # Otherwise a user-facing message is not a note to the maintainers.
        if not _MESSAGE_TODO.search(words.text) or not _ABOUT_SUPPORT.search(words.text):
            return None
        if names_missing_hardware(words, generation) or _WORKAROUND.search(words.text):
            return None
        if _lacks_only_elsewhere(words.text, generation):
            return None
        return f"a gap with a TODO: {words.quoted()}"
    if words.kind == "docstring" and not _ARCH_WORDS.search(words.text):
        return None  # "now only beam_width 1 is supported": the function's, not the GPU's
    if _lacks_only_elsewhere(words.text, generation):
        return None  # "does not yet select its FP8 kernel on sm100": that one's to do
    if (_TODO.search(words.text) or _UNTESTED.search(words.text)) and (
        generation_mention(generation).search(words.text) or _ABOUT_SUPPORT.search(words.text)
    ):
        return f"a gap with a TODO: {words.quoted()}"
    return None


# A message that says something is switched off.
_SAYS_OFF = re.compile(
    r"disabl|not supported|unsupported|fall(s|ing)?[ _-]?back|not available", re.IGNORECASE
)
# Words that state what something needs (not what it does); a message's bare "only"
# ("only SM90+") states it too, a docstring's ("it only relabels B") need not.
_REQUIRES = r"requir|\bneeds?\b|\bmust\b|\bonly (supported|available|works|runs)|supported only"
_REQUIREMENT = re.compile(_REQUIRES, re.IGNORECASE)
_ASKS = re.compile(_REQUIRES + r"|\bonly\b", re.IGNORECASE)


def requirement_sentences(text: str) -> str:
    """The sentences of `text` that state a requirement ("Requires SM100+ (Blackwell).",
    not "the relabel the signature demands (off SM90+)")."""
    sentences = re.split(r"(?<=[.!?])\s+", " ".join(text.split()))
    return " ".join(s for s in sentences if _REQUIREMENT.search(s))


def asks_for_more(words: Words, generation: Generation) -> str | None:
    """'requires SM90+' on a gate that leaves out sm120: the words admit it."""
    if words.kind == "docstring" and not words.sole:
        return None  # a docstring speaks of the whole function, often of other options
    if words.kind == "comment" and _NEGATIVE.search(words.text):
        return None  # "X does not support it, so require SM100+": a limitation explained
    if words.kind == "message" and _SAYS_OFF.search(words.text) and not _ASKS.search(words.text):
        # "Disabling FusedAttention ... on arch >= sm100 with cuDNN < 9.18": the message
        # names where the refusal applies, not what the feature asks for.
        return None
    here = generation.capability[0] * 10 + generation.capability[1]
    for match in _AT_LEAST.finditer(words.text):
        if match.group("d"):
            floor = int(match.group("d")) * 10 + int(match.group("dm"))
        else:
            floor = int(match.group("a") or match.group("b") or match.group("c"))
        if floor <= here:
            asked = match.group(0).strip()
            return f"its words ask for {asked}, which {generation.name} is: {words.quoted()}"
    return None


_SM_NUMBER = re.compile(r"\bsm[_ ]?(\d{2,3})[a-z]?\b", re.IGNORECASE)


def enumerates_others(words: Words, generation: Generation) -> str | None:
    """'SM100 (Blackwell) -> trtllm-gen; SM90 (Hopper) -> cutlass': the words map two or
    more majors to their paths and this generation's major is not among them."""
    if words.kind != "comment":
        return None  # a message or docstring restates the requirement ("SM100, SM103, SM110")
    majors = {int(n) // 10 for n in _SM_NUMBER.findall(words.text)}
    if len(majors) >= 2 and generation.major not in majors:
        shown = ", ".join(f"sm{m}x" for m in sorted(majors))
        return f"its words enumerate {shown}, not {generation.name}: {words.quoted()}"
    return None


# A family name qualified down to part of it: "Blackwell datacenter GPUs", "consumer Blackwell".
_PART_OF_FAMILY = re.compile(
    r"data[- ]?cent(er|re)|\bDC\b|consumer|desktop|workstation|\blite\b|\bserver\b",
    re.IGNORECASE,
)


def asks_for_its_family(words: Words, generation: Generation) -> str | None:
    """'only supported on Blackwell GPUs (SM100)' on a gate that leaves out sm120, a
    Blackwell: the message promises the family, the gate admits one part of it. Not when
    the sentence says the family is unsupported or names only part of it, unless the
    sentence is in the branch the condition's truth takes: then it speaks of what the
    condition tests ('Cannot use FA3 on Blackwell' under `major == 10`; 'unavailable:
    requires Blackwell' under `major != 10`), which sm120, a Blackwell, is."""
    family = generation.family
    if words.kind != "message" or not family:
        return None
    if not re.search(rf"\b{re.escape(family)}\b", words.text, re.IGNORECASE):
        return None
    if _PART_OF_FAMILY.search(words.text) or _glosses_the_family(words.text, generation):
        return None
    if excludes_its_family(words, generation) is not None:
        return None  # "... excluding Blackwell": the family is left out by name
    if not _NEGATIVE.search(words.text):
        return f"its words ask for {family}, which {generation.name} is: {words.quoted()}"
    if words.taken_when_true:
        return (
            f"the branch its condition takes speaks of {family}, which "
            f"{generation.name} is: {words.quoted()}"
        )
    return None


# "SM100 family": the family of one major, named by its number.
_MAJOR_FAMILY = re.compile(r"\bsm[_ ]?(\d{2,3})[a-z]?\s+family\b", re.IGNORECASE)


def _glosses_the_family(text: str, generation: Generation) -> bool:
    """'requires SM100 family (Blackwell: SM100, SM103, SM110)': the sentence says which
    part of the family it means, by number (a major's family, or three or more parts),
    and this generation's major is not among them."""
    majors = [int(n) // 10 for n in _MAJOR_FAMILY.findall(text)]
    listed = [int(n) // 10 for n in _SM_NUMBER.findall(text)]
    named = majors if majors else (listed if len(listed) >= 3 else [])
    return bool(named) and generation.major not in named


# "SM<=90", "<= sm_90", "up to SM90", "SM90 or older": where the words stop.
_AT_MOST = re.compile(
    r"\bsm\s*<=?\s*(?P<a>\d{2,3})\b"
    r"|<=\s*sm[_ ]?(?P<b>\d{2,3})\b"
    r"|\bup to\s+sm[_ ]?(?P<c>\d{2,3})\b"
    r"|\bsm[_ ]?(?P<d>\d{2,3})[a-z]?\s+(?:or|and)\s+(?:older|earlier|below|lower)\b",
    re.IGNORECASE,
)


def sets_a_ceiling(words: Words, generation: Generation) -> str | None:
    """'FlashAttention v3 requires SM>=80 and SM<=90': the words stop below this
    generation (the Hopper kernel, refused on Blackwell on purpose). SM numbers are
    NVIDIA's."""
    if generation.vendor != "nvidia":
        return None
    for match in _AT_MOST.finditer(words.text):
        ceiling = int(next(group for group in match.groups() if group))
        if ceiling < generation.sm_version:
            stop = match.group(0).strip()
            return (
                f"documented: its words stop at {stop}, below {generation.name}: {words.quoted()}"
            )
    return None


_EXCLUDING = r"\b(?:exclud\w*|except|other than|besides|apart from)\b"


def excludes_its_family(words: Words, generation: Generation) -> str | None:
    """'supported on compute capability >= 8 excluding 8.6 and 8.9 and Blackwell archs
    (>=10)': the words leave this generation's family out by name."""
    family = generation.family
    if family and re.search(
        _EXCLUDING + rf"[^.;]*\b{re.escape(family)}\b", words.text, re.IGNORECASE
    ):
        return f"documented: its words exclude {family}: {words.quoted()}"
    return None


DELIBERATE_RULES: tuple[Rule, ...] = (
    says_unsupported_here,
    names_missing_hardware,
    calls_it_a_workaround,
    says_validated_only,
    says_slower_elsewhere,
    sets_a_ceiling,
    excludes_its_family,
)
GAP_RULES: tuple[Rule, ...] = (has_todo, asks_for_more, asks_for_its_family, enumerates_others)


# Rules that read a whole note (a mapping over several lines), not one sentence.
WHOLE_TEXT_RULES: tuple[Rule, ...] = (enumerates_others,)


def apply(rules: tuple[Rule, ...], texts: list[Words], generation: Generation) -> list[str]:
    found: list[str] = []
    for words in texts:
        for rule in rules:
            pieces = [words] if rule in WHOLE_TEXT_RULES else list(sentences(words))
            for sentence in pieces:
                reason = rule(sentence, generation)
                if reason is not None and reason not in found:
                    found.append(reason)
    return found[:3]  # the first few are enough to decide and to read


def texts_near(
    statement: nodes.NodeNG,
    condition: nodes.NodeNG,
    file_comments: list[Words],
    hardware: re.Pattern[str],
) -> list[Words]:
    """Comments from a few lines above the condition to the first lines of its branch,
    the branch's strings (not those of nested definitions or elif branches) and the
    enclosing function's docstring. `hardware` (hardware_words): what a comment in the
    branch over a test of its own names to speak of the gate (_nested_test_lines)."""
    first = int(condition.lineno or 1)
    last = int(condition.end_lineno or first)
    body = getattr(statement, "body", None)
    body_end = last
    if isinstance(body, list) and body:
        body_end = max(last, min(int(body[-1].end_lineno or last), last + _BODY_LINES))
    # A note that ends on the line just above the statement (or the condition) speaks of
    # it, however early it starts; one ending above other code speaks of that code.
    above = {int(statement.lineno or first) - 1, first - 1}
    nested = _nested_test_lines(statement, body_end + 1)
    found = [
        w
        for w in file_comments
        if w.line <= body_end
        and (first - _COMMENT_LINES_BEFORE <= w.line or w.end in above)
        and not (w.line > last and w.end + 1 in nested and not hardware.search(w.text))
    ]
    found += branch_strings(statement)
    scope = statement.scope()
    if isinstance(scope, nodes.FunctionDef) and scope.doc_node is not None:
        found.append(Words(int(scope.doc_node.lineno or 1), "docstring", str(scope.doc_node.value)))
    return found


def hardware_words(generations: Iterable[Generation]) -> re.Pattern[str]:
    """Words that speak of the hardware: arch words, an SM number or count, the
    instruction-set features of HARDWARE_WORDS, and each generation's name, family and
    products (`Tuned on GB300; validated on GB200 and with 148 SMs.`)."""
    names = {
        word
        for g in generations
        for word in (g.name, g.family, *g.products)
        if word and len(word) > 1
    }
    spellings = [_ARCH_WORDS.pattern, _ANY_SM.pattern, r"\bSMs?\b"]
    spellings += [p.pattern for p in HARDWARE_WORDS.values()]
    spellings += [rf"\b{re.escape(word)}\b" for word in sorted(names, key=len, reverse=True)]
    return re.compile("|".join(spellings), re.IGNORECASE)


def _nested_test_lines(statement: nodes.NodeNG, until: int) -> frozenset[int]:
    """The lines (to `until`) where an `if` inside the gate's branch begins. A comment in the branch
    ending just above one speaks of that test, as one just above the gate speaks of the
    gate (sglang 0.5.6's `if is_sm100_supported(): # workaround for flashinfer#2006` over
    `if not self.enable_dp_attention and self.nnodes == 1:`): unless it speaks of the
    hardware, which that test does not read, it is not the gate's. As for the branch's
    strings, a branch that only refuses options keeps them (branch_strings)."""
    if not isinstance(statement, nodes.If) or (
        not statement.orelse and refuses_options(statement.body)
    ):
        return frozenset()
    lines: set[int] = set()
    pending: list[nodes.NodeNG] = list(statement.body)
    while pending:
        node = pending.pop()
        if int(node.lineno or 0) > until or isinstance(
            node, (nodes.FunctionDef, nodes.ClassDef, nodes.Lambda)
        ):
            continue
        if isinstance(node, nodes.If):
            lines.add(int(node.lineno or 0))
        pending.extend(node.get_children())
    return frozenset(lines)


def branch_strings(statement: nodes.NodeNG) -> list[Words]:
    statements: list[nodes.NodeNG] = []
    body: set[int] = set()
    refusing = False
    if isinstance(statement, nodes.If):
        refusing = not statement.orelse and refuses_options(statement.body)
        statements = list(statement.body)
        body = {id(s) for s in statement.body}
        if not (len(statement.orelse) == 1 and isinstance(statement.orelse[0], nodes.If)):
            statements += list(statement.orelse)
    elif isinstance(statement, (nodes.Assert, nodes.Return)):
        statements = [statement]
    out: list[Words] = []
    for stmt in statements:
        if isinstance(stmt, (nodes.FunctionDef, nodes.ClassDef)):
            continue
        if isinstance(stmt, nodes.If) and not (id(stmt) in body and refusing):
            # Another gate's words; but the branch's own where it only refuses options
            # (`if arch != 100: if deterministic: raise ValueError("... for now")`).
            continue
        for const in stmt.nodes_of_class(nodes.Const):
            # Sentences only: 'tcgen05' or 'cutlass' picked as a value is a name, not a word.
            if isinstance(const.value, str) and " " in const.value.strip():
                line = int(const.lineno or stmt.lineno or 1)
                out.append(Words(line, "message", const.value, taken_when_true=id(stmt) in body))
    return out


def comments(source: str) -> list[Words]:
    """The comments of `source` as `tokenize` reads them, a note over consecutive lines
    as one; when tokenize stops at an error (an unterminated string or bracket, a bad
    dedent), those read until then."""
    found = comment_tokens(source)
    out: list[Words] = []
    for line, token in found:
        text = token.lstrip("#").strip()
        if out and out[-1].end == line - 1:  # a note over consecutive lines is one
            previous = out[-1]
            out[-1] = Words(previous.line, "comment", f"{previous.text}\n{text}", line)
        else:
            out.append(Words(line, "comment", text, line))
    return out


def comment_tokens(source: str) -> list[tuple[int, str]]:
    """(line, text) of each COMMENT token `tokenize.generate_tokens` gives for `source`,
    those before its error when it raises one."""
    if "#" not in source:
        return []  # a comment starts with one
    found = _scanned_comments(source)
    return _tokenized_comments(source) if found is None else found


def _tokenized_comments(source: str) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                found.append((token.start[0], token.string))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass  # the comments read until then are what there is
    return found


# What the scan below reads of a line in code: the next comment, string or backslash
# (no other token holds one of these characters, so the first is where one starts).
_SPECIAL = re.compile(r"[#'\"\\]")
_COMMENT = re.compile(r"#[^\r\n]*")
# tokenize's own patterns: a one-line string from its quote (ContStr without the prefix,
# which only precedes the quote), and the rest of a triple-quoted one.
_ONE_LINE = {
    "'": re.compile(r"'[^\n'\\]*(?:\\.[^\n'\\]*)*('|\\\r?\n)"),
    '"': re.compile(r'"[^\n"\\]*(?:\\.[^\n"\\]*)*("|\\\r?\n)'),
}
_TRIPLE_END = {q: re.compile(tokenize.endpats[q]) for q in ("'''", '"""')}
_LONE_CR = re.compile("\r(?!\n)")
_INDENT = re.compile(r"[ \t\f]*")


def _scanned_comments(source: str) -> list[tuple[int, str]] | None:
    """comment_tokens without making every token: tokenize's loop over lines (its
    string, bracket, continuation and indentation states), reading only comments,
    strings and brackets, at positions in `source` (no line copied). None where it
    would need to read what tokenize does with an error token or a lone CR (a string
    left open at the end of a line, a backslash continuing a one-line string):
    tokenize answers those."""
    if _LONE_CR.search(source):
        return None  # tokenize's lines end at LF only; a CR ends a comment token
    found: list[tuple[int, str]] = []
    parenlev = 0
    continued = False
    indents = [0]
    endprog: re.Pattern[str] | None = None  # inside a triple-quoted string
    size = len(source)
    special, count, indent = _SPECIAL.search, source.count, _INDENT.match
    start, number = 0, 0
    while start < size:
        number += 1
        stop = source.find("\n", start) + 1 or size  # the line is source[start:stop]
        pos = start
        if endprog is not None:
            match = endprog.match(source, start, stop)
            if match is None:
                start = stop
                continue
            pos, endprog = match.end(), None
        elif parenlev == 0 and not continued:  # a new statement
            pos = indent(source, start, stop).end()  # type: ignore[union-attr]
            if pos == stop:
                break  # only blanks, without a line end: tokenize stops
            first = source[pos]
            if first == "#":
                found.append((number, _COMMENT.match(source, pos).group()))  # type: ignore[union-attr]
                start = stop
                continue
            if first in "\r\n":
                start = stop
                continue
            column = _column(source, start, pos)
            if column > indents[-1]:
                indents.append(column)
            while column < indents[-1]:
                if column not in indents:
                    return found  # IndentationError: what was read until then
                indents.pop()
        else:
            continued = False
        while True:
            match = special(source, pos, stop)
            end = stop if match is None else match.start()
            if end > pos:
                parenlev += (
                    count("(", pos, end)
                    + count("[", pos, end)
                    + count("{", pos, end)
                    - count(")", pos, end)
                    - count("]", pos, end)
                    - count("}", pos, end)
                )
            if match is None:
                break
            char = source[end]
            if char == "#":
                found.append((number, _COMMENT.match(source, end).group()))  # type: ignore[union-attr]
                break  # the line end follows (no lone CR)
            if char == "\\":
                if source.startswith("\n", end + 1) or source.startswith("\r\n", end + 1):
                    continued = True
                    break
                pos = end + 1  # an error token of its own
                continue
            if source.startswith(char * 3, end, stop):
                endprog = _TRIPLE_END[char * 3]
                closed = endprog.match(source, end + 3, stop)
                if closed is None:
                    break  # the string goes on on the next lines
                pos, endprog = closed.end(), None
                continue
            one = _ONE_LINE[char].match(source, end, stop)
            if one is None or one.group(1) != char:
                return None  # an open string: an error token, or continued by a backslash
            pos = one.end()
        start = stop
    return found


def _column(source: str, start: int, pos: int) -> int:
    """tokenize's column of the indentation `source[start:pos]` (a tab to the next
    multiple of 8, a form feed back to 0)."""
    if source.find("\t", start, pos) < 0 and source.find("\f", start, pos) < 0:
        return pos - start
    column = 0
    for char in source[start:pos]:
        if char == " ":
            column += 1
        elif char == "\t":
            column = (column // tokenize.tabsize + 1) * tokenize.tabsize
        else:
            column = 0
    return column


def function_messages(statement: nodes.NodeNG) -> list[Words]:
    """The sentences of the enclosing function's strings (its raise, assert and log
    messages), outside nested definitions and the docstring: what the function as a whole
    asks for ("requires SM90+" above a gate that admits only SM100)."""
    scope = statement.scope()
    if not isinstance(scope, nodes.FunctionDef):
        return []
    doc = scope.doc_node
    around = {id(n) for n in statement.node_ancestors()} | {id(statement)}
    out: list[Words] = []
    for stmt in scope.body:
        if isinstance(stmt, (nodes.FunctionDef, nodes.ClassDef)):
            continue
        for const in stmt.nodes_of_class(nodes.Const, skip_klass=(nodes.FunctionDef,)):
            if const is doc or not isinstance(const.value, str) or " " not in const.value.strip():
                continue
            if _in_another_branch(const, statement, around):
                continue
            out.append(Words(int(const.lineno or stmt.lineno or 1), "message", const.value))
    return out


def _in_another_branch(node: nodes.NodeNG, statement: nodes.NodeNG, around: set[int]) -> bool:
    """The message and the gate part at an `if` (other branches of a dispatch speak of
    other options: "CUTLASS requires SM90+" is not about the DeepGEMM branch's gate)."""
    for parent in node.node_ancestors():
        if id(parent) in around:
            return isinstance(parent, nodes.If) and parent is not statement
    return False


def else_comments(statement: nodes.NodeNG, file_comments: list[Words]) -> list[Words]:
    """Comments on the `else:` of an if/else (from the end of the body to the first
    lines of the else branch): what the other branch is for. None for an elif."""
    if not isinstance(statement, nodes.If) or not statement.orelse or not statement.body:
        return []
    if len(statement.orelse) == 1 and isinstance(statement.orelse[0], nodes.If):
        return []
    start = int(statement.body[-1].end_lineno or statement.lineno or 1) + 1
    first = int(statement.orelse[0].lineno or start)
    last = min(int(statement.orelse[-1].end_lineno or first), first + _BODY_LINES)
    return [w for w in file_comments if start <= w.line <= last]
