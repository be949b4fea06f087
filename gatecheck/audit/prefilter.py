"""Which files and names speak of the GPU architecture at all: the audit's cheap text
prefilter (only files that spell an arch idiom are searched for gates) and the names of
device predicates (`is_sm100_supported`: vocabulary, decided at their call sites)."""

from __future__ import annotations

import re

# Cheap text prefilter: only files that spell an arch or vendor idiom are searched for gates
# (resolution still reads any module it needs). Bare "arch" would match model_arch,
# architectures and search, so only its standalone and device spellings count.
ARCH_IDIOM = re.compile(
    r"capability|is_sm_?\d|sm_?\d{2,3}|hopper|blackwell|gfx9|get_device_properties"
    r"|\barch\b|gcnArchName|gcn_arch|cuda_arch|arch_list|\bis_arch_|\bget_arch"
    r"|supported_major_versions|get_device_sm|query-gpu=compute_cap|compute_version"
    r"|version\.hip|version\.cuda|get_current_target|target_info|amdsmi_get_gpu_asic_info"
    r"|is_bf16_supported",
    re.IGNORECASE,
)
# Pieces of text every name spelling the idiom's words holds (one of them, in some case):
# the statements a definition made of such a name can be (audit/widening.py); `sm_90`,
# `is_sm90` are left out, "sm" being in too many words (a predicate so named returns a
# condition, found as one).
IDIOM_PIECES = tuple(
    spelled
    for word in ("capability", "hopper", "blackwell", "gfx9", "arch", "get_device_")
    for spelled in (word, word.capitalize(), word.upper())
)
# A device predicate asks about the device: is_/has_/supports_ plus an arch or vendor word.
_PREDICATE_PREFIX = re.compile(r"^_*(is|has|supports?)_", re.IGNORECASE)
_ARCH_WORD = re.compile(
    r"^(sm_?\d+[a-z]?|sm|hopper|blackwell|ampere|ada|volta|turing|gfx\w*|mi\d+\w*|cdna\d*"
    r"|capability|arch|cuda|hip|rocm|nvidia|amd)$",
    re.IGNORECASE,
)


def has_predicate_prefix(name: str) -> bool:
    """`is_`/`has_`/`supports_` (leading underscores allowed): a predicate's name."""
    return _PREDICATE_PREFIX.match(name) is not None


def is_predicate_name(name: str) -> bool:
    return has_predicate_prefix(name) and names_arch(name)


# A word naming a generation or a family of them (not `sm`, `arch`, `cuda` alone).
_GENERATION_WORD = re.compile(
    r"^(sm_?\d+[a-z]?|sm\d+x|hopper|blackwell|ampere|ada|volta|turing|gfx\d\w*|mi\d+\w*"
    r"|cdna\d*|rdna\d*)$",
    re.IGNORECASE,
)


def names_a_generation(name: str) -> bool:
    """One of the name's words names a generation or a family (`is_sm100`, `is_hopper_fp8`,
    `is_sm100_family`; not `is_supported_arch`, `is_sm_supported`)."""
    return any(_GENERATION_WORD.match(word) for word in name.split("_") if word)


def names_arch(name: str) -> bool:
    """One of the name's words is an arch's (`_match_sm_version`, `get_cuda_arch`)."""
    return any(_ARCH_WORD.match(word) for word in name.split("_") if word)


def mentions_arch(text: str) -> bool:
    """ARCH_IDIOM.search(text), an order of magnitude faster: the alternation is scanned
    as literals over the lowercased text (re tries every alternative at every position).
    Exact: lowercasing only differs from re.IGNORECASE on four characters, left to re.
    The alternatives that hold "arch" (`cuda_arch`, `gcnArchName`...) are matched where
    "arch" is found, those that begin `get_device_` where that is: one scan each."""
    if not text.isascii() and any(special in text for special in _CASE_SPECIALS):
        return ARCH_IDIOM.search(text) is not None
    lowered = text.lower()
    if any(literal in lowered for literal in _ARCH_LITERALS):
        return True
    if _SM_NUMBER.search(lowered) or _IS_SM.search(lowered):
        return True
    at = lowered.find(_GET_DEVICE)
    while at >= 0:
        if lowered.startswith(_GET_DEVICE_ENDINGS, at + len(_GET_DEVICE)):
            return True
        at = lowered.find(_GET_DEVICE, at + 1)
    for match in _ARCH.finditer(lowered):
        start, end = match.span()
        if any(start >= at and lowered.startswith(word, start - at) for word, at in _HOLDING_ARCH):
            return True
        word_before = start > 0 and _is_word(lowered[start - 1])
        if not word_before and not (end < len(lowered) and _is_word(lowered[end])):
            return True  # \barch\b
        for prefix in ("is_", "get_"):
            head = start - len(prefix)
            if head >= 0 and lowered.startswith(prefix, head):
                if head > 0 and _is_word(lowered[head - 1]):
                    continue
                if prefix == "get_" or lowered.startswith("_", end):
                    return True  # \bget_arch, \bis_arch_
    return False


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"  # re's \w on str


# The alternatives of ARCH_IDIOM, lowercased; those without a boundary are plain literals,
# each scanned for, but for those holding "arch" (looked for where "arch" is: each with
# where "arch" begins in it) and those beginning `get_device_` (looked for where that is).
_ARCH_LITERALS = (
    "capability",
    "hopper",
    "blackwell",
    "gfx9",
    "supported_major_versions",  # a build arch list (audit/declarations.py)
    "query-gpu=compute_cap",  # nvidia-smi's capability query (idioms/nvidia_smi.py)
    "compute_version",  # TVM's `tvm.cuda(0).compute_version` (idioms/tvm_device.py)
    # The vendor and target idioms the evaluator reads (a file testing only them holds
    # vendor gates): `torch.version.hip`/`.cuda` (idioms/torch_version.py), Triton's
    # `get_current_target()` and `target_info` helpers, amdsmi's ASIC info.
    "version.hip",
    "version.cuda",
    "get_current_target",
    "target_info",
    "amdsmi_get_gpu_asic_info",
    "is_bf16_supported",  # torch.cuda's bfloat16 test (idioms/bf16_support.py)
)
_HOLDING_ARCH = (("gcnarchname", 3), ("gcn_arch", 4), ("cuda_arch", 5), ("arch_list", 0))
# get_device_properties; get_device_sm: major * 10 + minor, as engines spell it
# (`get_device_sm() < 90`).
_GET_DEVICE = "get_device_"
_GET_DEVICE_ENDINGS = ("properties", "sm")
_SM_NUMBER = re.compile(r"sm_?\d\d")  # sm_?\d{2,3}: two digits are enough to match
_IS_SM = re.compile(r"is_sm_?\d")
_ARCH = re.compile("arch")
# Non-ASCII characters that re.IGNORECASE matches with ASCII letters (or that lower()
# turns into two characters): K (Kelvin), long s, dotted and dotless i.
_CASE_SPECIALS = frozenset("\u0130\u0131\u017f\u212a")
