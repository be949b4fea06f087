"""Styled lines for the terminal reports, and the two ways to print them.

A report that goes to a pipe or a file with no colours (pre-commit, CI logs, `> out.txt`)
is plain text: importing rich and laying its Text objects out cost about 15 ms of a 0.3 s
pre-commit run. The text report therefore builds `Styled` lines (pieces of text, each with
an optional style, as rich.Text.assemble takes them) and prints them through a `Printer`:
`RichPrinter` hands them to a rich console as the same Text objects it always built
(colours, a terminal's width), `PlainPrinter` writes what that console writes when it
takes no styles, byte for byte (tests/test_styled.py holds the two equal): the pieces
joined, tabs expanded to rich's tab stops (every 8 cells, a wide character 2 cells),
nothing wrapped (the console soft-wraps). Which one a run takes is `plain.takes_styles`:
rich's own test of the stream.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

TAB_SIZE = 8  # rich's default (Console.tab_size)


class Styled:
    """One or more lines of text: `pieces` (text, style or None), and a style for the
    whole (`base`), as rich.Text(base=...) and Text.append build them."""

    __slots__ = ("base", "pieces")

    def __init__(self, *pieces: str | tuple[str, str], base: str = "") -> None:
        self.base = base
        self.pieces: list[tuple[str, str | None]] = [
            (piece, None) if isinstance(piece, str) else piece for piece in pieces
        ]

    def append(self, text: str, style: str | None = None) -> None:
        self.pieces.append((text, style))

    @property
    def plain(self) -> str:
        return "".join(text for text, _ in self.pieces)

    def to_text(self) -> Text:
        from rich.text import Text

        out = Text(style=self.base)
        for text, style in self.pieces:
            out.append(text, style)
        return out


class Printer(Protocol):
    def print(self, line: Styled | str = "", *, style: str | None = None, end: str = "\n") -> None:
        """`line` then `end`; `style` for the whole of it (a summary line)."""


class RichPrinter:
    """Through a rich console: the Text objects the report always printed."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def print(self, line: Styled | str = "", *, style: str | None = None, end: str = "\n") -> None:
        shown = line.to_text() if isinstance(line, Styled) else line
        self.console.print(shown, style=style, end=end)


class PlainPrinter:
    """What RichPrinter writes to a stream that takes no styles, without rich."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def print(self, line: Styled | str = "", *, style: str | None = None, end: str = "\n") -> None:
        text = line.plain if isinstance(line, Styled) else line
        self.stream.write(expand_tabs(text) + end)


def expand_tabs(text: str, tab_size: int = TAB_SIZE) -> str:
    """rich.Text.expand_tabs on plain text: a tab moves to the next multiple of
    `tab_size` cells. For ASCII that is str.expandtabs; otherwise cells are counted as
    rich counts them (rich.cells: an East Asian wide character takes 2, a combining
    mark none), imported only for such a line."""
    if "\t" not in text:
        return text
    return "\n".join(_expand_line(line, tab_size) for line in text.split("\n"))


def _expand_line(line: str, tab_size: int) -> str:
    if "\t" not in line or line.isascii():
        return line.expandtabs(tab_size)
    from rich.cells import cell_len

    out: list[str] = []
    column = 0
    parts = line.split("\t")
    for part in parts[:-1]:
        piece = part + " "
        column += cell_len(piece)
        pad = (tab_size - column % tab_size) % tab_size
        column += pad
        out.append(piece + " " * pad)
    out.append(parts[-1])
    return "".join(out)
