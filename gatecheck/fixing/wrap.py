"""Keep edited lines within the line length the file already respects, the way black
splits a too-long bracketed boolean chain: one operand per line, operators leading."""

from __future__ import annotations

import ast
import io
import tokenize

DEFAULT_LIMIT = 88


def line_limit(text: str) -> int:
    longest = max((len(line) for line in text.splitlines()), default=0)
    return max(DEFAULT_LIMIT, longest)


def wrap_long_lines(before: bytes, after: bytes, encoding: str) -> bytes:
    codec = encoding.replace("-sig", "")
    old_text = before.decode(codec)
    new_text = after.decode(codec)
    limit = line_limit(old_text)
    old_lines = set(old_text.splitlines())
    newline = "\r\n" if "\r\n" in new_text else "\n"
    lines = new_text.splitlines(keepends=True)
    changed = False
    for index, line in enumerate(lines):
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        if len(body) <= limit or body in old_lines:
            continue
        wrapped = explode_boolean_group(body, limit, newline)
        if wrapped is None:
            # `a or b or c` already inside brackets opened on an earlier line: one
            # operand per line is only right there, so the result must still parse.
            split = explode_chain(body, limit, newline)
            trial = [*lines[:index], (split or "") + ending, *lines[index + 1 :]]
            wrapped = split if split is not None and _parses("".join(trial)) else None
        if wrapped is not None:
            lines[index] = wrapped + ending
            changed = True
    return "".join(lines).encode(codec) if changed else after


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


def explode_chain(line: str, limit: int, newline: str) -> str | None:
    """`a or b or c` (no bracket of its own) -> `a` / `or b` / `or c`, same indent."""
    indent = line[: len(line) - len(line.lstrip())]
    stripped = line.strip()
    tokens = _tokens(stripped)
    if not tokens:
        return None
    depth, operators = 0, []
    for token in tokens:
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        elif depth == 0 and token.type == tokenize.NAME and token.string in ("or", "and"):
            operators.append(token)
    if depth != 0 or not operators or len({o.string for o in operators}) != 1:
        return None
    pieces, cursor = [], 0
    for operator in operators:
        pieces.append(stripped[cursor : operator.start[1]].strip())
        cursor = operator.end[1]
    pieces.append(stripped[cursor:].strip())
    word = operators[0].string
    lines = [indent + pieces[0], *(f"{indent}{word} {piece}" for piece in pieces[1:])]
    if not all(len(candidate) <= limit for candidate in lines):
        return None
    return newline.join(lines)


def _tokens(line: str) -> list[tokenize.TokenInfo] | None:
    try:
        return [
            t
            for t in tokenize.generate_tokens(io.StringIO(line.strip() + "\n").readline)
            if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER)
        ]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None


def explode_boolean_group(line: str, limit: int, newline: str) -> str | None:
    """`x and (a or b or c)` -> `x and (` / `a` / `or b` / `or c` / `)`, indented by 4.
    None when the line has no single-line bracketed `or`/`and` chain to split."""
    indent = line[: len(line) - len(line.lstrip())]
    stripped = line.strip()
    tokens = _tokens(stripped)
    if not tokens:
        return None
    for index, token in enumerate(tokens):
        if token.string != "(":
            continue
        depth, close, operators = 0, None, []
        for inner in tokens[index:]:
            if inner.string in "([{" and inner.type == tokenize.OP:
                depth += 1
            elif inner.string in ")]}" and inner.type == tokenize.OP:
                depth -= 1
                if depth == 0:
                    close = inner
                    break
            elif depth == 1 and inner.type == tokenize.NAME and inner.string in ("or", "and"):
                operators.append(inner)
        if close is None or not operators or len({o.string for o in operators}) != 1:
            continue
        open_col, close_col = token.end[1], close.start[1]
        pieces, cursor = [], open_col
        for operator in operators:
            pieces.append(stripped[cursor : operator.start[1]].strip())
            cursor = operator.end[1]
        pieces.append(stripped[cursor:close_col].strip())
        inner_indent = indent + "    "
        word = operators[0].string
        lines = [indent + stripped[:open_col]]
        lines.append(inner_indent + pieces[0])
        lines.extend(f"{inner_indent}{word} {piece}" for piece in pieces[1:])
        lines.append(indent + stripped[close_col:])
        if all(len(candidate) <= limit for candidate in lines):
            return newline.join(lines)
    return None
