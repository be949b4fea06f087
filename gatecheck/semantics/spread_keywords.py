"""The keywords a call's `**` arguments may give, where their text says: a dict display
with constant string keys (`**{"extra": extra}`), or a choice of such
(`**({"extra": extra} if extra is not None else {})`, the optional-keyword idiom). A
parameter that none of them names is not given by them: the call passes it plainly or
leaves its default, as if there were no `**`. Anything else (`**kwargs`, `**opts`,
`dict(...)`, a key that is not a constant string) may give any name."""

from __future__ import annotations

from astroid import nodes


def spread_names(call: nodes.Call) -> frozenset[str] | None:
    """Every name the call's `**` arguments may give (empty without any), or None when
    one of them may give any name."""
    names: set[str] = set()
    for keyword in call.keywords or ():
        if keyword.arg is not None:
            continue
        given = _names(keyword.value)
        if given is None:
            return None
        names |= given
    return frozenset(names)


def _names(value: nodes.NodeNG) -> frozenset[str] | None:
    if isinstance(value, nodes.IfExp):
        body, orelse = _names(value.body), _names(value.orelse)
        return None if body is None or orelse is None else body | orelse
    if not isinstance(value, nodes.Dict):
        return None
    names: set[str] = set()
    for key, _ in value.items:
        # `**{**other}` spreads another mapping: any name.
        if not (isinstance(key, nodes.Const) and isinstance(key.value, str)):
            return None
        names.add(key.value)
    return frozenset(names)
