# Titles: a short clause of the message, holes named, never cut mid-word, and made
# unique within a package so that a list of errors tells them apart.
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from errdex.explain.conditions import held_value, scalar
from errdex.expr import Attribute, Call, Expr, Name
from errdex.model import ErrorSite, Hole, Message

MAX_TITLE = 80
_MIN_WORDS = 3
_CLAUSE_END = re.compile(r"(?<=[a-z0-9)\]`'\"])(?:[.!?;]\s|\s\(|:\s|\s-\s)")
_COMMA = re.compile(r",\s")


def hole_name(tree: Expr | None) -> str:
    """A readable name for a hole, from its tree: `self.backend` -> backend, `len(xs)` ->
    len(xs); "value" when nothing names it (or the hole came with no tree)."""
    node: Expr | str | None = tree
    while node is not None and not isinstance(node, str):
        step = _NAME_STEP.get(type(node).__name__)
        if step is None:
            return "value"  # a literal, an operation, ...: nothing names it
        node = step(node)
    return "value" if node is None else node


def _call_name(node: Call) -> Expr | str:
    """`len(xs)` and `type(x)` keep the call; a call that formats one value
    (`format_gib(needed)`, `str(x)`, `x.lower()`) names that value; else the function."""
    inner = node.args[0] if len(node.args) == 1 and not node.keywords else None
    named = inner is not None and isinstance(inner, Name | Attribute)
    if isinstance(node.func, Name) and node.func.id in ("type", "len"):
        if inner is not None and named:
            return f"{node.func.id}({hole_name(inner)})"
    elif inner is not None and named:
        return inner
    if not node.args and isinstance(node.func, Attribute) and _FORMATTING.match(node.func.attr):
        return node.func.value  # `name.lower()`, `path.strip()`: the value itself
    return node.func


_OF_VALUE = frozenset({"__name__", "__qualname__", "__class__"})
_FORMATTING = re.compile(r"^(lower|upper|strip|lstrip|rstrip|title|casefold|capitalize)$")

# One step towards a hole's name, by node type name: the name itself, or the part of
# the expression to look at next.
_NAME_STEP: dict[str, Callable[[Any], Expr | str]] = {
    # `type(x).__name__` names `type(x)`, `x.__class__` names `x`: a dunder says what of it
    "Attribute": lambda node: node.value if node.attr in _OF_VALUE else node.attr,
    "Name": lambda node: node.id,
    "Subscript": lambda node: node.value,
    "Call": _call_name,
}


@lru_cache(maxsize=8192)
def display(message: Message, known: tuple[tuple[str, str], ...] = ()) -> str:
    """The message as a reader sees it, each hole as {name}, or as its value when `known`
    has one for the hole's expression (a module constant's literal)."""
    values = dict(known)
    out: list[str] = []
    for part in message.parts:
        if not isinstance(part, Hole):
            out.append(part.text)
        elif part.expr in values and not (part.conversion or part.format_spec):
            out.append(values[part.expr])
        else:
            out.append("{" + hole_name(part.tree) + "}")
    return " ".join("".join(out).split())


def constants(site: ErrorSite) -> tuple[tuple[str, str], ...]:
    """The module constants a site reads, by expression, with their values as a message
    would print them: a literal string or number (for `display`)."""
    values = ((item.expr, held_value(item, ("constant",))) for item in site.inputs)
    return tuple((expr, str(value)) for expr, value in values if scalar(value))


def _trim(text: str) -> str:
    """Drop holes and punctuation dangling at either end: "x: {v}" -> "x"."""
    previous = None
    while previous != text:
        previous = text
        text = re.sub(r"(?:[:=,;(\[-]\s*|\s[-(]\s*)\{[^{}]*\}[\s)\].'\"]*$", "", text)
        text = text.strip().rstrip(":,;-( ").strip()
    return text


def clause(text: str, limit: int = MAX_TITLE) -> str:
    """The first clause of `text` with at least a few words, at most `limit` characters."""
    text = text.strip()
    for match in _CLAUSE_END.finditer(text):
        head = _trim(text[: match.start()])
        if len(head.split()) >= _MIN_WORDS and len(head) <= limit:
            return head
        if len(head) > limit:
            break
    whole = _trim(text.rstrip("."))
    if len(whole) <= limit and whole:
        return whole
    best = ""
    for match in _COMMA.finditer(text):
        head = _trim(text[: match.start()])
        if len(head) > limit:
            break
        if len(head.split()) >= _MIN_WORDS:
            best = head
    if best:
        return best
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return _trim(cut) + "…"


def base_title(site: ErrorSite, guard_text: str | None) -> str:
    """The title from the message alone, before titles are compared across a package."""
    exc = site.exception.name.rsplit(".", 1)[-1]
    if site.message is not None and site.message.literal_text.strip():
        title = clause(display(site.message, constants(site)))
        if title and len(title.strip("{}…. ")) > 1:
            return title
    if site.kind == "assert" and guard_text:
        return clause(f"Assertion failed: {guard_text}")
    if site.kind == "reraise":
        return f"{exc} re-raised in {site.location.function}"
    return f"{exc} in {site.location.function}"


def unique_titles(sites: Sequence[ErrorSite], titles: Sequence[str]) -> list[str]:
    """Lengthen titles that collide: first to more of the message, then by function."""
    out = list(titles)
    for _ in range(2):
        groups: dict[str, list[int]] = defaultdict(list)
        for i, title in enumerate(out):
            groups[title].append(i)
        changed = False
        for title, members in groups.items():
            if len(members) < 2:
                continue
            messages = {_text(sites[i]) for i in members}
            for i in members:
                site = sites[i]
                if len(messages) > 1 and site.message is not None and _ == 0:
                    longer = clause(display(site.message, constants(site)), limit=140)
                    if longer != title:
                        out[i] = longer
                        changed = True
                elif _ == 1 or len(messages) == 1:
                    where = site.location.function
                    if where == "<module>":
                        where = site.location.file
                    suffix = f" (in {where})"
                    if where not in out[i]:
                        out[i] = out[i] + suffix
                        changed = True
        if not changed:
            break
    return out


def _text(site: ErrorSite) -> str:
    return "" if site.message is None else site.message.text
