"""Text from the analysed code (paths, conditions, string literals) as plain, printable text.

Every report shows data it does not control: a file may be called `a:100:b.py` (an emoji
code to rich), `[bold].py` (markup), hold ESC sequences in a string literal (terminal
control), have a name that is not UTF-8 (`caf\\xe9.py`, a lone surrogate once decoded, which
no UTF-8 stream can write), or a newline in its name (a new Markdown heading). Reporters
pass such text through `printable` and print through `plain_console`, which never reads
markup or emoji codes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

# C0 and C1 controls and DEL (tab is kept: code frames align their carets with it), lone
# surrogates (undecodable file-name bytes), and the bidirectional overrides that make
# shown code differ from the code ("Trojan Source").
_UNPRINTABLE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape: the original byte of the file name
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` on one line, with every control character, undecodable byte and bidi override
    shown as a backslash escape (`\\x1b`, `\\xe9`, `\\n`, `\\u202e`)."""
    return _UNPRINTABLE.sub(_escape, text) if _UNPRINTABLE.search(text) else text


_SURROGATE = re.compile("[\ud800-\udfff]")


def encodable(text: str) -> str:
    """`text` with only its lone surrogates (undecodable file-name bytes) escaped: what
    any UTF-8 writer can take, line breaks and all."""
    return _SURROGATE.sub(_escape, text) if _SURROGATE.search(text) else text


def plain_console(
    file: IO[str] | None = None,
    *,
    stderr: bool = False,
    width: int | None = None,
    color: str = "auto",
    soft_wrap: bool = True,
) -> Console:
    """A console that prints strings as they are (no markup, no emoji codes, no
    highlighting); styles come only from the reporters' own Text spans. `color` is
    auto (colours on a terminal, honouring NO_COLOR and FORCE_COLOR), always or never.
    With `soft_wrap` (the default) a line is never broken to fit a width. rich is
    imported here, not with the module: `printable` is used on every run, and a JSON,
    SARIF or cache-answered run need not pay rich's import (about 40 ms)."""
    from rich.console import Console

    return Console(
        file=file,
        stderr=stderr,
        width=width,
        markup=False,
        emoji=False,
        highlight=False,
        force_terminal=True if color == "always" else None,
        # never: no escape sequence at all (no_color alone would keep bold and dim).
        color_system=None if color == "never" else "auto",
        soft_wrap=soft_wrap,
    )


def takes_styles(
    stream: IO[str], color: str = "auto", environ: Mapping[str, str] | None = None
) -> bool:
    """Whether `plain_console(stream, color=color)` would write escape sequences: rich's
    own test (Console.is_terminal: TTY_COMPATIBLE, then FORCE_COLOR, then isatty), with
    `never` writing none. When it says no, a line printed through that console is the
    line and a newline, and a report of nothing but that line needs no rich at all."""
    if color == "always":
        return True
    if color == "never":
        return False
    env = os.environ if environ is None else environ
    compatible = env.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "1"
    force = env.get("FORCE_COLOR")
    if force is not None:
        return force != ""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
