# Error sites of Rust files that PyO3 exposes to Python: `PyValueError::new_err(...)` and
# the other `Py*Error::new_err` (and `PyErr::new::<T, _>`), `py_err!(T; "...", ...)`
# and `py_error_type!`, with `format!` read into holes; an error enum whose
# `message_template*` method maps each variant to a `{name}` template (pydantic-core's
# ErrorType), and the places that construct one of its variants (`ErrorType::X {..}`,
# `ErrorTypeDefaults::X`), made sites when files are linked. And what Python sees: the
# exception classes (`#[pyclass(extends=...)]`, `create_exception!`), `#[pyfunction]`s
# and `#[pymethods]`. Code under `#[cfg(test)]` is not the package's.
from __future__ import annotations

import re

from tree_sitter import Node

from errdex.expr import Name
from errdex.extract.native import grammar
from errdex.extract.native.classes import pyo3_class, qualified
from errdex.extract.native.conditions import source, text, tree
from errdex.extract.native.context import Place, place_of, site_at, snippet
from errdex.extract.native.facts import (
    Binding,
    DeclaredClass,
    NativeFacts,
    NativeFunction,
    NativeSite,
    VariantTemplate,
)
from errdex.extract.native.messages import format_parts, message, placeholder_parts
from errdex.extract.native.strings import literal_text
from errdex.model import Hole, Message, Part, Text

_CANDIDATES = re.compile(
    rb"\bnew_err\b|\b(?:py_err|py_error_type)!|\bPyErr::new::<"
    rb"|\b\w*Error\w*::[A-Z]\w*|\bfn\s+message_template"
)
_DECLARATIONS = re.compile(
    rb"#\[\s*(?:pyo3::)?(?:pyclass|pyfunction|pymethods)\b|\b(?:create_exception|import_exception)!"
)
_PATTERNS = frozenset(
    {"match_pattern", "struct_pattern", "tuple_struct_pattern", "or_pattern", "let_condition"}
)
_TEXT_METHODS = frozenset({"to_string", "to_owned", "into", "clone", "as_str", "as_ref"})
_TEXT_FUNCTIONS = frozenset({"String::from", "Cow::Borrowed", "Cow::Owned", "Cow::from"})


def read(data: bytes, path: str) -> NativeFacts:
    """The facts of one Rust file."""
    return _Reader(data, path).facts()


class _Reader:
    def __init__(self, data: bytes, path: str) -> None:
        self.data = data
        self.path = path
        self.lines = data.decode("utf-8", "replace").split("\n")
        self.sites: list[NativeSite] = []
        self.templates: list[VariantTemplate] = []
        self.classes: list[DeclaredClass] = []
        self.bindings: list[Binding] = []

    def facts(self) -> NativeFacts:
        root = grammar.parse("rust", self.data).root_node
        for match in _CANDIDATES.finditer(self.data):
            node = root.descendant_for_byte_range(match.start(), match.start() + 1)
            if node is None or _in_comment(node):
                continue
            word = match.group()
            if word == b"new_err":
                self._new_err(node)
            elif word.startswith(b"PyErr::new"):
                self._pyerr_new(node)
            elif word.endswith(b"!"):
                self._py_err(node)
            elif word.startswith(b"fn"):
                self._templates(node)
            else:
                self._variant(node, word.decode())
        for match in _DECLARATIONS.finditer(self.data):
            node = root.descendant_for_byte_range(match.start(), match.start() + 1)
            if node is not None and not _in_comment(node):
                self._declaration(node, match.group().decode())
        self.sites.sort(key=lambda s: s.location.line)
        return NativeFacts(
            path=self.path,
            language="rust",
            sites=tuple(self.sites),
            classes=tuple(self.classes),
            bindings=tuple(self.bindings),
            templates=tuple(self.templates),
            functions=_functions(root),
            lines=len(self.lines),
        )

    # -- sites ---------------------------------------------------------------------------

    def _new_err(self, node: Node) -> None:
        scoped = node.parent
        if scoped is None or scoped.type != "scoped_identifier":
            return
        path = scoped.child_by_field_name("path")
        call = scoped.parent
        if path is None or call is None or call.type != "call_expression":
            return
        raised = _own_type(source(path), call)
        if raised is None:
            return  # a generic type parameter: the class is the caller's
        args = _call_args(call)
        msg = message(_parts(args[0])) if args else None
        self._add(call, f"new_err {raised}", raised, pyo3_class(raised), msg)

    def _pyerr_new(self, node: Node) -> None:
        call: Node | None = node
        while call is not None and call.type != "call_expression":
            call = call.parent
        if call is None:
            return
        func = call.child_by_field_name("function")
        kinds = None if func is None else func.child_by_field_name("type_arguments")
        if kinds is None or not kinds.named_children:
            return
        raised = _own_type(source(kinds.named_children[0]), call)
        if raised is None:
            return
        args = _call_args(call)
        msg = message(_parts(args[0])) if args else None
        self._add(call, f"PyErr::new {raised}", raised, pyo3_class(raised), msg)

    def _py_err(self, node: Node) -> None:
        macro = node.parent
        if macro is None or macro.type != "macro_invocation":
            return
        tokens = _token_tree(macro)
        if tokens is None:
            return
        kind, _, rest = _split_at(tokens, ";")
        if not kind or not rest:
            return
        raised = _tokens_text(self.data, kind)
        msg = self._format(rest)
        name = text(node)
        self._add(macro, f"{name}! {raised}", raised, pyo3_class(raised), msg)

    def _format(self, tokens: list[Node]) -> Message | None:
        """A format string and its arguments, as in format!(...)."""
        parts = _format_tokens(tokens, self.data, 0)
        return None if parts is None else message(parts)

    def _variant(self, node: Node, written: str) -> None:
        """`ErrorType::IntParsing {..}` or `ErrorTypeDefaults::IntParsing` built: a site
        once linking knows the enum's template for it."""
        scoped = node.parent
        while scoped is not None and scoped.type not in (
            "scoped_identifier",
            "scoped_type_identifier",
        ):
            scoped = scoped.parent if scoped.type in ("identifier", "type_identifier") else None
        if scoped is None:
            return
        holder = scoped.parent
        if holder is not None and holder.type in ("scoped_identifier", "scoped_type_identifier"):
            return  # a longer path (`a::ErrorType::X`): its own match handles it
        if _in_pattern(scoped) or _in_token_tree(scoped):
            return
        name = scoped.child_by_field_name("name")
        path = scoped.child_by_field_name("path")
        if name is None or path is None:
            return
        at = holder if holder is not None and holder.type == "struct_expression" else scoped
        raised = f"{source(path)}::{text(name)}"
        self._add(at, f"variant {raised}", raised, None, None)

    def _add(
        self, node: Node, form: str, raised: str, python: str | None, msg: Message | None
    ) -> None:
        place = place_of(node)
        if place.in_test:
            return
        line, end = node.start_point[0] + 1, node.end_point[0] + 1
        self.sites.append(
            site_at(
                place,
                form=form,
                raised=raised,
                python_class=python,
                message=msg,
                file=self.path,
                language="rust",
                lines=self.lines,
                line=line,
                end_line=end,
            )
        )

    # -- an error enum's templates ---------------------------------------------------------

    def _templates(self, node: Node) -> None:
        fn: Node | None = node
        while fn is not None and fn.type != "function_item":
            fn = fn.parent
        if fn is None:
            return
        name_node = fn.child_by_field_name("name")
        impl = fn.parent.parent if fn.parent is not None else None
        if name_node is None or impl is None or impl.type != "impl_item":
            return
        enum_node = impl.child_by_field_name("type")
        if enum_node is None:
            return
        enum = text(enum_node)
        kind = text(name_node).removeprefix("message_template").strip("_") or "python"
        body = fn.child_by_field_name("body")
        match = _first(body, "match_expression")
        block = None if match is None else match.child_by_field_name("body")
        for arm in () if block is None else block.named_children:
            if arm.type != "match_arm":
                continue
            value = arm.child_by_field_name("value")
            literal = _literal_value(value)
            pattern = arm.child_by_field_name("pattern")
            if literal is None or pattern is None:
                continue
            parts = placeholder_parts(literal)
            for variant in _variants(pattern, enum):
                self.templates.append(
                    VariantTemplate(
                        enum=enum,
                        variant=variant,
                        message=message(parts),
                        kind=kind,
                        line=arm.start_point[0] + 1,
                        snippet=snippet(self.lines, arm.start_point[0] + 1, arm.end_point[0] + 1),
                    )
                )

    # -- what Python sees --------------------------------------------------------------------

    def _declaration(self, node: Node, word: str) -> None:
        if word.endswith("!"):
            macro = node.parent
            if macro is None or macro.type != "macro_invocation":
                return
            tokens = _token_tree(macro)
            groups = _groups(tokens or [])
            if len(groups) < 2:
                return
            module = _tokens_text(self.data, groups[0]).replace("::", ".").replace(" ", "")
            name = _tokens_text(self.data, groups[1])
            base = None
            if word.startswith("create_exception") and len(groups) > 2:
                found = pyo3_class(_tokens_text(self.data, groups[2]))
                base = None if found is None else qualified(found)
            self.classes.append(DeclaredClass(name=name, qualname=f"{module}.{name}", base=base))
            return
        attribute: Node | None = node
        while attribute is not None and attribute.type != "attribute_item":
            attribute = attribute.parent
        if attribute is None:
            return
        item = attribute.next_named_sibling
        while item is not None and item.type in ("attribute_item", "line_comment", "block_comment"):
            item = item.next_named_sibling
        if item is None:
            return
        options = _options(attribute)
        if "pyclass" in word and item.type in ("struct_item", "enum_item"):
            name_node = item.child_by_field_name("name")
            if name_node is None:
                return
            rust_name = text(name_node)
            python_name = options.get("name", rust_name)
            home = options.get("module")
            extends = options.get("extends")
            parent = None if extends is None else pyo3_class(extends)
            self.classes.append(
                DeclaredClass(
                    name=rust_name,
                    qualname=f"{home}.{python_name}" if home else python_name,
                    base=None if parent is None else qualified(parent),
                )
            )
        elif "pyfunction" in word and item.type == "function_item":
            name_node = item.child_by_field_name("name")
            if name_node is not None:
                shown = _pyo3_name(attribute, item) or text(name_node)
                self.bindings.append(
                    Binding(python=shown, native=text(name_node), line=item.start_point[0] + 1)
                )
        elif "pymethods" in word and item.type == "impl_item":
            owner = item.child_by_field_name("type")
            body = item.child_by_field_name("body")
            if owner is None or body is None:
                return
            cls = text(owner)
            for fn in body.named_children:
                if fn.type != "function_item":
                    continue
                name_node = fn.child_by_field_name("name")
                if name_node is None:
                    continue
                shown = _pyo3_name(None, fn) or text(name_node)
                if _has_attribute(fn, "new"):
                    shown = "__new__"
                self.bindings.append(
                    Binding(
                        python=f"{cls}.{shown}",
                        native=f"{cls}::{text(name_node)}",
                        line=fn.start_point[0] + 1,
                    )
                )


# -- helpers -----------------------------------------------------------------------------


def _own_type(written: str, node: Node) -> str | None:
    """`Self` as the type of the impl block around `node`; None for a one-letter generic
    parameter (`T::new_err`), the class a caller picks."""
    if len(written) == 1 and written.isupper():
        return None
    if written != "Self":
        return written
    current = node.parent
    while current is not None and current.type != "impl_item":
        current = current.parent
    kind = None if current is None else current.child_by_field_name("type")
    return None if kind is None else text(kind).split("<", 1)[0]


def _in_comment(node: Node) -> bool:
    current: Node | None = node
    while current is not None:
        if current.type in (
            "line_comment",
            "block_comment",
            "string_literal",
            "raw_string_literal",
        ):
            return True
        if current.type in ("block", "source_file", "function_item"):
            return False
        current = current.parent
    return False


def _in_pattern(node: Node) -> bool:
    current = node.parent
    while current is not None:
        if current.type in _PATTERNS or current.type.endswith("_pattern"):
            return True
        if current.type in ("block", "expression_statement", "let_declaration", "arguments"):
            return False
        current = current.parent
    return False


def _in_token_tree(node: Node) -> bool:
    current = node.parent
    while current is not None:
        if current.type == "token_tree":
            return True
        if current.type in ("block", "source_file"):
            return False
        current = current.parent
    return False


def _call_args(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    return [] if args is None else [a for a in args.named_children if "comment" not in a.type]


def _parts(node: Node, depth: int = 0) -> list[Part]:
    """A Rust expression that makes a message, as parts."""
    if depth > 50:
        return [Hole(expr=source(node))]
    kind = node.type
    if kind in ("string_literal", "raw_string_literal"):
        value = literal_text(node)
        return [Text(text=value)] if value is not None else [Hole(expr=source(node))]
    if kind == "macro_invocation":
        macro = node.child_by_field_name("macro")
        if macro is not None and text(macro) in ("format", "format_args"):
            tokens = _token_tree(node)
            data = node.text or b""
            built = _format_tokens(tokens or [], data, node.start_byte)
            if built is not None:
                return built
    if kind in ("reference_expression", "parenthesized_expression"):
        named = node.named_children
        inner = node.child_by_field_name("value") or (named[-1] if named else None)
        if inner is not None:
            return _parts(inner, depth + 1)
    if kind == "call_expression":
        func = node.child_by_field_name("function")
        args = _call_args(node)
        if func is not None and func.type == "field_expression" and not args:
            field = func.child_by_field_name("field")
            receiver = func.child_by_field_name("value")
            if field is not None and receiver is not None and text(field) in _TEXT_METHODS:
                return _parts(receiver, depth + 1)
        if func is not None and source(func) in _TEXT_FUNCTIONS and len(args) == 1:
            return _parts(args[0], depth + 1)
    return [Hole(expr=source(node), tree=tree(node))]


def _format_tokens(tokens: list[Node], data: bytes, base: int) -> list[Part] | None:
    """The parts of a format string and its arguments, as in format!(...), or None when
    the first argument is no string literal; `data` is the source from byte `base` on."""
    groups = _groups(tokens)
    if not groups or len(groups[0]) != 1:
        return None
    fmt = literal_text(groups[0][0])
    if fmt is None:
        return None
    positional: list[str] = []
    named: dict[str, str] = {}
    for group in groups[1:]:
        shown = _slice(data, base, group)
        if len(group) >= 3 and group[0].type == "identifier" and text(group[1]) == "=":
            named[text(group[0])] = _slice(data, base, group[2:])
        else:
            positional.append(shown)
    return _named_trees(format_parts(fmt, positional, named))


def _named_trees(parts: list[Part]) -> list[Part]:
    """Holes that are a plain name get it as their tree."""
    return [
        Hole(expr=p.expr, format_spec=p.format_spec, tree=Name(id=p.expr))
        if isinstance(p, Hole) and p.expr.isidentifier()
        else p
        for p in parts
    ]


def _slice(data: bytes, base: int, group: list[Node]) -> str:
    raw = data[group[0].start_byte - base : group[-1].end_byte - base]
    return " ".join(raw.decode("utf-8", "replace").split())


def _tokens_text(data: bytes, group: list[Node]) -> str:
    return _slice(data, 0, group)


def _token_tree(macro: Node) -> list[Node] | None:
    for child in macro.children:
        if child.type == "token_tree":
            return [c for c in child.children if c.type not in ("(", ")", "[", "]", "{", "}")]
    return None


def _split_at(tokens: list[Node], mark: str) -> tuple[list[Node], bool, list[Node]]:
    for i, token in enumerate(tokens):
        if text(token) == mark:
            return tokens[:i], True, tokens[i + 1 :]
    return tokens, False, []


def _groups(tokens: list[Node]) -> list[list[Node]]:
    out: list[list[Node]] = [[]]
    for token in tokens:
        if token.type == "," or text(token) == ",":
            out.append([])
        elif "comment" not in token.type:
            out[-1].append(token)
    return [g for g in out if g]


def _first(node: Node | None, kind: str) -> Node | None:
    todo = [] if node is None else [node]
    while todo:
        current = todo.pop(0)
        if current.type == kind:
            return current
        todo.extend(current.named_children)
    return None


def _literal_value(node: Node | None) -> str | None:
    """A match arm's value when it is a string literal, or a block ending in one."""
    if node is None:
        return None
    if node.type == "block":
        inner = [c for c in node.named_children if "comment" not in c.type]
        if len(inner) != 1:
            return None
        node = inner[0]
        if node.type == "expression_statement" and node.named_children:
            node = node.named_children[0]
    return literal_text(node) if node.type in ("string_literal", "raw_string_literal") else None


def _variants(pattern: Node, enum: str) -> list[str]:
    """The variants a pattern names: `Self::A { .. } | Self::B { .. }` -> A, B."""
    out: list[str] = []
    todo = [pattern]
    while todo:
        node = todo.pop()
        if node.type in ("scoped_type_identifier", "scoped_identifier"):
            path, name = node.child_by_field_name("path"), node.child_by_field_name("name")
            if path is not None and name is not None and text(path) in ("Self", enum):
                out.append(text(name))
            continue
        todo.extend(reversed(node.named_children))
    return out


def _options(attribute: Node) -> dict[str, str]:
    """`#[pyclass(extends=PyValueError, module="m", name="N")]` -> its key=value pairs."""
    out: dict[str, str] = {}
    todo = [attribute]
    while todo:
        node = todo.pop()
        if node.type == "token_tree":
            items = [c for c in node.children if c.type not in ("(", ")")]
            for i in range(len(items) - 2):
                if text(items[i + 1]) == "=" and items[i].type == "identifier":
                    value = items[i + 2]
                    shown = literal_text(value) if value.type == "string_literal" else text(value)
                    if shown is not None:
                        out.setdefault(text(items[i]), shown)
            continue
        todo.extend(node.named_children)
    return out


def _pyo3_name(attribute: Node | None, item: Node) -> str | None:
    """`#[pyo3(name = "x")]` (or `name =` in the binding attribute itself) above `item`."""
    prev = item.prev_named_sibling
    attributes = [] if attribute is None else [attribute]
    while prev is not None and prev.type == "attribute_item":
        attributes.append(prev)
        prev = prev.prev_named_sibling
    for attr in attributes:
        name = _options(attr).get("name")
        if name is not None:
            return name
    return None


def _has_attribute(item: Node, name: str) -> bool:
    prev = item.prev_named_sibling
    while prev is not None and prev.type == "attribute_item":
        if text(prev).replace(" ", "") == f"#[{name}]":
            return True
        prev = prev.prev_named_sibling
    return False


def _functions(root: Node) -> tuple[NativeFunction, ...]:
    out: list[NativeFunction] = []
    todo = [root]
    while todo:
        node = todo.pop()
        for child in node.named_children:
            if child.type == "function_item":
                body = child.child_by_field_name("body")
                place: Place = place_of(body or child)
                raw = b"" if body is None else body.text or b""
                calls = frozenset(m.group(1).decode() for m in _CALL.finditer(raw))
                if calls:
                    out.append(
                        NativeFunction(
                            name=place.function, line=child.start_point[0] + 1, calls=calls
                        )
                    )
            elif child.type in ("impl_item", "mod_item", "declaration_list", "trait_item"):
                todo.append(child)
    return tuple(out)


_CALL = re.compile(rb"\b([A-Za-z_]\w*)\s*(?:::<[^;{}()]*>)?\s*\(")
