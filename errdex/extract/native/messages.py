# Message templates of native code: a printf format and its arguments (PyErr_Format),
# a Rust `format!` string and its arguments, the pieces a C++ check streams together,
# and a template with `{name}` placeholders filled later (pydantic-core's ErrorType).
# Each becomes literal parts and holes, as a Python f-string does.
from __future__ import annotations

from collections.abc import Sequence

from errdex.extract.templates import merge
from errdex.model import Hole, Message, Part, Text

# printf conversions: %[flags][width][.precision][length]type (C99, and CPython's own
# PyUnicode_FromFormat types: %S %R %A %U %V %T %N)
_FLAGS = frozenset("-+ #0")
_LENGTHS = ("hh", "h", "ll", "l", "j", "z", "t", "L", "q", "I64", "I32", "I")
_TYPES = frozenset("diouxXeEfFgGaAcspnSRUVTN")
_PY_CONVERSIONS = {"R": "r", "S": "s", "A": "a"}


def message(parts: Sequence[Part]) -> Message:
    return Message(parts=merge(list(parts)))


def printf_parts(fmt: str, args: Sequence[str]) -> list[Part]:
    """The parts of printf format `fmt` filled by the argument expressions `args`, in
    order; a conversion with no argument left is a hole named after its position."""
    out: list[Part] = []
    text: list[str] = []
    i, n, used = 0, len(fmt), 0
    while i < n:
        c = fmt[i]
        if c != "%":
            text.append(c)
            i += 1
            continue
        if fmt.startswith("%%", i):
            text.append("%")
            i += 2
            continue
        j = i + 1
        while j < n and fmt[j] in _FLAGS:
            j += 1
        stars = 0
        while j < n and (fmt[j].isdigit() or fmt[j] == "*"):
            stars += fmt[j] == "*"
            j += 1
        if j < n and fmt[j] == ".":
            j += 1
            while j < n and (fmt[j].isdigit() or fmt[j] == "*"):
                stars += fmt[j] == "*"
                j += 1
        for length in _LENGTHS:
            if fmt.startswith(length, j):
                j += len(length)
                break
        if j >= n or fmt[j] not in _TYPES:  # not a conversion: keep the text as it is
            text.append(c)
            i += 1
            continue
        kind = fmt[j]
        used += stars  # `%.*s` takes its precision from an argument first
        expr = args[used] if used < len(args) else f"arg{used + 1}"
        used += 1
        if text:
            out.append(Text(text="".join(text)))
            text = []
        out.append(Hole(expr=expr, conversion=_PY_CONVERSIONS.get(kind)))
        i = j + 1
    if text:
        out.append(Text(text="".join(text)))
    return out


def format_parts(fmt: str, args: Sequence[str], named: dict[str, str] | None = None) -> list[Part]:
    """The parts of a Rust `format!` string: `{}` takes the next argument, `{0}` one by
    position, `{name}` a named argument or the variable of that name; `{{` is a brace.
    A format spec after `:` (`{:?}`, `{x:>8}`) is kept as the hole's spec."""
    named = named or {}
    out: list[Part] = []
    text: list[str] = []
    i, n, nxt = 0, len(fmt), 0
    while i < n:
        c = fmt[i]
        if c in "{}" and fmt.startswith(c * 2, i):
            text.append(c)
            i += 2
            continue
        if c != "{":
            text.append(c)
            i += 1
            continue
        close = fmt.find("}", i + 1)
        if close < 0:
            text.append(fmt[i:])
            break
        field = fmt[i + 1 : close]
        name, _, spec = field.partition(":")
        name = name.strip()
        if not name:
            expr = args[nxt] if nxt < len(args) else f"arg{nxt + 1}"
            nxt += 1
        elif name.isdigit():
            expr = args[int(name)] if int(name) < len(args) else f"arg{int(name) + 1}"
        else:
            expr = named.get(name, name)
        if text:
            out.append(Text(text="".join(text)))
            text = []
        out.append(Hole(expr=expr, format_spec=spec or None))
        i = close + 1
    if text:
        out.append(Text(text="".join(text)))
    return out


def placeholder_parts(template: str) -> list[Part]:
    """The parts of a template whose `{name}` placeholders are replaced later by name
    (pydantic-core's ErrorType messages): every `{identifier}` is a hole."""
    out: list[Part] = []
    text: list[str] = []
    i, n = 0, len(template)
    while i < n:
        c = template[i]
        if c == "{":
            close = template.find("}", i + 1)
            name = template[i + 1 : close] if close > 0 else ""
            if name.isidentifier():
                if text:
                    out.append(Text(text="".join(text)))
                    text = []
                out.append(Hole(expr=name))
                i = close + 1
                continue
        text.append(c)
        i += 1
    if text:
        out.append(Text(text="".join(text)))
    return out


_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "0": "\0",
    "\\": "\\",
    '"': '"',
    "'": "'",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "?": "?",
    "e": "\x1b",
}


def unescape(escape: str) -> str:
    """The character a C or Rust escape sequence stands for (`\\n`, `\\x41`, `\\u{1F600}`);
    an unknown one as written."""
    body = escape[1:]
    if not body:
        return escape
    if body[0] in "xuU":
        digits = body[1:].strip("{}")
        try:
            return chr(int(digits, 16))
        except (ValueError, OverflowError):
            return escape
    if body[0] in "01234567" and len(body) > 1:
        try:
            return chr(int(body, 8))
        except ValueError:
            return escape
    if body[0] == "\n":  # a Rust string continued on the next line: the break is dropped
        return ""
    return _ESCAPES.get(body[0], escape)
