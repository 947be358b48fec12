# String literals of C, C++ and Rust as the text they stand for: escapes decoded,
# adjacent literals joined ("a" "b"), raw strings (R"(...)", r#"..."#) read as written.
from __future__ import annotations

from tree_sitter import Node

from errdex.extract.native.conditions import source, text
from errdex.extract.native.messages import unescape
from errdex.model import Hole, Part, Text

STRING_TYPES = frozenset(
    {"string_literal", "raw_string_literal", "concatenated_string", "char_literal"}
)
# the prefix that names a stringified macro parameter (`#x`) in a macro body we re-read
STRINGIFIED = "errdex_stringified_"


def literal_text(node: Node) -> str | None:
    """The text of a single string literal node; None for anything else."""
    kind = node.type
    if kind == "raw_string_literal":
        return _raw(node)
    if kind != "string_literal":
        return None
    out: list[str] = []
    after_break = False
    for child in node.children:
        ctype = child.type
        if ctype == "string_content":
            value = text(child)
            out.append(value.lstrip() if after_break else value)
            after_break = False
        elif ctype == "escape_sequence":
            value = text(child)
            after_break = value.startswith("\\\n") or value == "\\\r\n"
            out.append("" if after_break else unescape(value))
        elif ctype in ('"', "'") or not child.is_named:
            continue
    return "".join(out)


def _raw(node: Node) -> str:
    content = node.child_by_field_name("content")
    if content is not None:
        return text(content)
    for child in node.children:  # Rust: raw_string_literal > string_content
        if child.type == "string_content":
            return text(child)
    raw = text(node)
    # C++ R"delim(...)delim": what is between the first ( and the last )
    start, end = raw.find("("), raw.rfind(")")
    return raw[start + 1 : end] if 0 <= start < end else raw


def string_parts(node: Node) -> list[Part] | None:
    """The parts of a string literal, or of adjacent ones joined with macros between
    them ("%" PRId64 " items", #x " must be"); None when `node` is no string."""
    if node.type in ("string_literal", "raw_string_literal"):
        value = literal_text(node)
        return None if value is None else [Text(text=value)]
    if node.type != "concatenated_string":
        return None
    parts: list[Part] = []
    for child in node.named_children:
        got = string_parts(child)
        if got is not None:
            parts.extend(got)
        elif child.type == "identifier":
            parts.append(macro_piece(child))
    return parts


def macro_piece(node: Node) -> Part:
    """A name between two string literals: a stringified macro parameter (`#x`), or a
    macro that expands to text, such as a printf length (`PRId64`, `NPY_INTP_FMT`)."""
    name = text(node)
    if name.startswith(STRINGIFIED):
        return Hole(expr="#" + name[len(STRINGIFIED) :])
    if name.startswith("PRI") or name.endswith("_FMT"):
        return Text(text="d")  # it completes the `%` before it: a conversion of printf
    return Hole(expr=source(node))
