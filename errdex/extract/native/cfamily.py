# Error sites of C, C++ and CUDA files: CPython's PyErr_* calls, PyTorch's checks
# (TORCH_CHECK and its stable-ABI twin STD_TORCH_CHECK, their _EQ/_VALUE/... forms,
# TORCH_INTERNAL_ASSERT, AT_ERROR), C++ `throw`s of standard and pybind11 exceptions;
# and what links them to Python: exception objects the file creates, functions bound by
# pybind11 (`m.def`), torch libraries (`ops.impl`) and PyMethodDef tables.
#
# Candidates are found in the bytes (a name, then the syntax node at that offset), so
# the work is proportional to the sites, not to the size of the tree. A site inside a
# macro's body (`#define CHECK_CPU(x) TORCH_CHECK(...)`) is read by parsing the body on
# its own, on its own lines, with `#x` read as a hole named `#x`.
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from tree_sitter import Node

from errdex.expr import Expr
from errdex.extract.native import grammar
from errdex.extract.native.classes import (
    C10_ERRORS,
    CHECK_OPS,
    DEFAULT_CHECK,
    DEFAULT_CHECK_TAIL,
    TORCH_CHECKS,
    cpython_class,
    qualified,
)
from errdex.extract.native.conditions import source, text, tree
from errdex.extract.native.context import Param, is_false, place_of, site_at
from errdex.extract.native.facts import (
    Binding,
    DeclaredClass,
    NativeFacts,
    NativeFunction,
    NativeSite,
)
from errdex.extract.native.messages import format_parts, message, printf_parts
from errdex.extract.native.strings import STRING_TYPES, STRINGIFIED, string_parts
from errdex.model import Guard, Hole, Message, Part, Text

_CANDIDATES = re.compile(
    rb"\b(?:PyErr_(?:SetString|Format|FormatV|SetObject|SetNone|NoMemory|SetFromErrno\w*"
    rb"|BadArgument|BadInternalCall)|(?:STD_)?TORCH_\w+|AT_ERROR|AT_ASSERTM?|C10_THROW_ERROR"
    rb"|throw)\b"
)
_BINDINGS = re.compile(rb"\.(?:def|impl)\s*\(|PyMethodDef|PyErr_NewException")
_STRINGIFY = re.compile(rb"(?<![#\w])#\s*([A-Za-z_]\w*)")
_PASTE = re.compile(rb"[ \t]*##[ \t]*")
# pybind11's and torch's ways to bind a function, by the name the call's receiver has
_MODULE_MACROS = ("PYBIND11_MODULE", "NB_MODULE")
_LIBRARY_MACROS = ("TORCH_LIBRARY", "STABLE_TORCH_LIBRARY")
_PYERR_CLASS = {
    "PyErr_NoMemory": "MemoryError",
    "PyErr_BadArgument": "TypeError",
    "PyErr_BadInternalCall": "SystemError",
}
_PYERR_TEXT = {
    "PyErr_BadArgument": "bad argument type for built-in operation",
    "PyErr_BadInternalCall": "bad argument to internal function",
}
# How a message's text is built from C++ expressions, by the function called
_STREAMED = frozenset(
    {"c10::str", "str", "c10::detail::torchCheckMsgImpl", "absl::StrCat", "StrCat"}
)
_FORMATTED = frozenset({"fmt::format", "std::format", "format", "fmt::sprintf"})
_WRAPPERS = frozenset(
    {"std::string", "std::to_string", "to_string", "std::string_view", "string", "std::wstring"}
)
_TEXT_METHODS = frozenset({"c_str", "data", "str", "what"})


@dataclass(slots=True)
class _Scope:
    """Where a macro body read on its own sits: the macro's name and parameters."""

    function: str
    params: dict[str, Param]


def read(data: bytes, path: str, language: str) -> NativeFacts:
    """The facts of one C, C++ or CUDA file (`language` "c", "cpp" or "cuda")."""
    reader = _Reader(data, path, language)
    return reader.facts()


def reader(language: str) -> Callable[[bytes, str], NativeFacts]:
    """`read` for files of `language`."""
    return lambda data, path: read(data, path, language)


class _Reader:
    def __init__(self, data: bytes, path: str, language: str) -> None:
        self.data = data
        self.path = path
        self.language = language
        self.lines = data.decode("utf-8", "replace").split("\n")
        self.sites: list[NativeSite] = []
        self.classes: list[DeclaredClass] = []
        self.bindings: list[Binding] = []
        self.done_macros: set[int] = set()
        self.at: Node | None = None  # where the next site is, when not where its call is read

    def facts(self) -> NativeFacts:
        root = grammar.parse(self.language, self.data).root_node
        self._find(root, self.data, None)
        if _BINDINGS.search(self.data):
            self._bindings(root)
        self.sites.sort(key=lambda s: (s.location.line, s.location.end_line))
        return NativeFacts(
            path=self.path,
            language=self.language,
            sites=tuple(self.sites),
            classes=tuple(self.classes),
            bindings=tuple(self.bindings),
            functions=self._functions(root),
            torch_library=b"TORCH_LIBRARY" in self.data,
            lines=len(self.lines),
        )

    # -- finding candidates -----------------------------------------------------------

    def _find(self, root: Node, data: bytes, scope: _Scope | None) -> None:
        for match in _CANDIDATES.finditer(data):
            node = root.descendant_for_byte_range(match.start(), match.end())
            if node is None:
                continue
            outer = _enclosing(node)
            if outer is None:
                continue  # in a comment or a string
            if outer.type == "preproc_arg":
                if scope is None and outer.id not in self.done_macros:
                    self.done_macros.add(outer.id)
                    self._macro(outer)
                continue
            name = match.group().decode()
            if name == "throw":
                self._throw(node, scope)
            else:
                self._call(node, name, scope, data)

    def _isolated(self, name: Node, data: bytes) -> Node | None:
        """The call that starts at `name`, parsed alone (with its arguments balanced)."""
        end = _balanced(data, name.end_byte)
        if end is None:
            return None
        row = name.start_point[0]
        head = b"\n" * row + b"void errdex_call(){"
        fragment = head + data[name.start_byte : end] + b";}\n"
        root = grammar.parse(self.language, fragment).root_node
        found = root.descendant_for_byte_range(len(head), len(head) + 1)
        call = None if found is None else found.parent
        if call is None or call.type != "call_expression":
            return None
        return call

    def _macro(self, body: Node) -> None:
        """The sites in a macro's body, read as the body of a function named after it."""
        define = body.parent
        if define is None:
            return
        name_node = define.child_by_field_name("name")
        name = "<macro>" if name_node is None else text(name_node)
        params: dict[str, Param] = {}
        declared = define.child_by_field_name("parameters")
        if declared is not None:
            for p in declared.named_children:
                params[text(p)] = Param(text(p), None)
        raw = self.data[body.start_byte : body.end_byte]
        raw = raw.replace(b"\\\r\n", b" \n").replace(b"\\\n", b" \n")
        raw = _STRINGIFY.sub(rb"" + STRINGIFIED.encode() + rb"\1", raw)
        raw = _PASTE.sub(b"", raw)
        row = body.start_point[0]
        fragment = b"\n" * row + b"void errdex_macro(){" + raw + b"\n;}\n"
        root = grammar.parse(self.language, fragment).root_node
        self._find(root, fragment, _Scope(name, params))

    # -- sites ---------------------------------------------------------------------------

    def _call(self, node: Node, name: str, scope: _Scope | None, data: bytes) -> None:
        self.at = None
        call = node.parent
        if (
            call is None
            or call.type != "call_expression"
            or call.child_by_field_name("function") != node
        ):
            # not read as a call (a macro's `default: CHECK(...) }` lacks its `;`): the
            # call's own text, read alone, on its own lines
            call = self._isolated(node, data)
            if call is None:
                return
            self.at = node
        args = _arguments(call)
        if name in TORCH_CHECKS or (name.startswith(("TORCH_CHECK", "STD_TORCH_CHECK"))):
            self._torch(call, name, args, scope)
        elif name.startswith("PyErr_"):
            self._pyerr(call, name, args, scope)
        elif name == "C10_THROW_ERROR" and args:
            kind = source(args[0][0]).rsplit("::", 1)[-1]
            python = C10_ERRORS.get(kind, "RuntimeError")
            parts = _streamed(args[1:])
            self._add(
                call, f"C10_THROW_ERROR {kind}", f"c10::{kind}", python, message(parts), (), scope
            )

    def _torch(self, call: Node, name: str, args: list[list[Node]], scope: _Scope | None) -> None:
        python, mode = TORCH_CHECKS.get(name, ("RuntimeError", "args"))
        if mode == "with" and args:  # TORCH_CHECK_WITH(ErrorType, cond, ...)
            kind = source(args[0][0]).rsplit("::", 1)[-1]
            python = C10_ERRORS.get(kind.removesuffix("Error") + "Error", "RuntimeError")
            args, mode = args[1:], "args"
        extra: list[Guard] = []
        if mode == "all":
            parts = _streamed(args)
        elif mode == "op" and len(args) >= 2:
            op = CHECK_OPS.get(name.rsplit("_", 1)[-1], "==")
            a, b = _joined(args[0]), _joined(args[1])
            parts = [
                Text(text=f"Check failed: {a} {op} {b} ("),
                _hole(args[0]),
                Text(text=" vs. "),
                _hole(args[1]),
                Text(text="). "),
            ]
            parts += _streamed(args[2:])
            extra.append(
                Guard(
                    kind="if",
                    test=f"{a} {op} {b}",
                    negated=True,
                    line=call.start_point[0] + 1,
                    tree=_compare(args[0], op, args[1]),
                )
            )
        elif args:
            cond = args[0]
            parts = _streamed(args[1:])
            if not parts:
                parts = [
                    Text(text=DEFAULT_CHECK.replace("{cond}", _joined(cond)) + DEFAULT_CHECK_TAIL)
                ]
            if not (len(cond) == 1 and is_false(cond[0])):
                extra.append(_check_guard(cond))
        else:
            return
        self._add(call, name, name, python, message(parts), tuple(extra), scope)

    def _pyerr(self, call: Node, name: str, args: list[list[Node]], scope: _Scope | None) -> None:
        if name in _PYERR_CLASS:
            said = _PYERR_TEXT.get(name)
            fixed = None if said is None else message([Text(text=said)])
            self._add(call, name, name, _PYERR_CLASS[name], fixed, (), scope, follow=True)
            return
        if not args:
            return
        raised = _joined(args[0])
        python = cpython_class(raised)
        msg: Message | None
        if name in ("PyErr_Format", "PyErr_FormatV") and len(args) >= 2:
            msg = message(_printf(args[1], args[2:]))
        elif name == "PyErr_SetString" and len(args) >= 2:
            msg = message(_streamed(args[1:2]))
        elif name == "PyErr_SetObject" and len(args) >= 2:
            msg = message([_hole(args[1])])
        elif name.startswith("PyErr_SetFromErrno"):
            parts: list[Part] = [
                Text(text="[Errno "),
                Hole(expr="errno"),
                Text(text="] "),
                Hole(expr="strerror(errno)"),
            ]
            if len(args) >= 2:
                parts += [Text(text=": "), _hole(args[1], "r")]
            msg = message(parts)
        else:  # PyErr_SetNone: the class alone
            msg = None
        self._add(call, f"{name} {raised}", raised, python, msg, (), scope, follow=True)

    def _throw(self, node: Node, scope: _Scope | None) -> None:
        statement = node.parent
        if statement is None or statement.type not in ("throw_statement", "throw_expression"):
            return
        thrown = [c for c in statement.named_children if c.type != "comment"]
        if not thrown or thrown[0].type != "call_expression":
            return  # a rethrow, or an object built elsewhere
        call = thrown[0]
        func = call.child_by_field_name("function")
        if func is None:
            return
        if func.type == "template_function":
            inner = func.child_by_field_name("name")
            func = inner if inner is not None else func
        raised = source(func)
        if raised.endswith("error_already_set"):
            return  # pybind11 hands on the Python error already set: no new error
        args = _arguments(call)
        parts = _streamed(args[:1]) if args else []
        msg = message(parts) if parts else None
        self._add(statement, f"throw {raised}", raised, None, msg, (), scope)

    def _add(
        self,
        node: Node,
        form: str,
        raised: str,
        python: str | None,
        msg: Message | None,
        extra: tuple[Guard, ...],
        scope: _Scope | None,
        *,
        follow: bool = False,
    ) -> None:
        at, self.at = self.at or node, None
        if scope is None:
            place = place_of(at)
        else:
            place = place_of(at, function=scope.function, params=scope.params)
        line, end = node.start_point[0] + 1, node.end_point[0] + 1
        if follow:  # the `return NULL;` / `goto fail;` that hands the error on
            end = _handed_on(node, end)
        self.sites.append(
            site_at(
                place,
                form=form,
                raised=raised,
                python_class=python,
                message=msg,
                file=self.path,
                language=self.language,
                lines=self.lines,
                line=line,
                end_line=end,
                extra=extra,
            )
        )

    # -- what Python sees of the file ---------------------------------------------------

    def _bindings(self, root: Node) -> None:
        for match in _BINDINGS.finditer(self.data):
            node = root.descendant_for_byte_range(match.start(), match.start() + 1)
            if node is None or _enclosing(node) is None:
                continue
            word = match.group()
            if word.startswith(b"."):
                self._bound(node)
            elif word == b"PyMethodDef":
                self._method_table(node)
            else:
                self._new_exception(node)

    def _bound(self, node: Node) -> None:
        """`m.def("name", &fn)` in a pybind11 module, `ops.impl("name", ..., &fn)` in a
        torch library."""
        call = node.parent
        while call is not None and call.type != "call_expression":
            call = call.parent if call.type in ("field_expression",) else None
        if call is None:
            return
        args = _arguments(call)
        if len(args) < 2 or args[0][0].type != "string_literal":
            return
        name = _joined(args[0]).strip('"')
        target = _function_ref(args[-1] if len(args) > 2 and _is_dispatch_key(args[1]) else args[1])
        if target is None:
            return
        owner, owner_args = _owner_macro(call)
        if owner is None:
            return
        if owner.startswith(_LIBRARY_MACROS):
            python = f"torch.ops.{owner_args[0] if owner_args else '?'}.{name.split('(')[0]}"
        elif owner.startswith(_MODULE_MACROS):
            python = f"{owner_args[0] if owner_args else '?'}.{name}"
        else:
            return
        self.bindings.append(Binding(python=python, native=target, line=call.start_point[0] + 1))

    def _method_table(self, node: Node) -> None:
        decl = node.parent
        if decl is None or decl.type != "declaration":
            return
        for init in decl.named_children:
            value = init.child_by_field_name("value") if init.type == "init_declarator" else None
            if value is None or value.type != "initializer_list":
                continue
            for entry in value.named_children:
                items = [c for c in entry.named_children if c.type != "comment"]
                if entry.type != "initializer_list" or len(items) < 2:
                    continue
                if items[0].type != "string_literal":
                    continue
                fn = items[1]
                while fn.type == "cast_expression":
                    inner = fn.child_by_field_name("value")
                    if inner is None:
                        break
                    fn = inner
                if fn.type == "identifier":
                    self.bindings.append(
                        Binding(
                            python=_joined([items[0]]).strip('"'),
                            native=text(fn),
                            line=entry.start_point[0] + 1,
                        )
                    )

    def _new_exception(self, node: Node) -> None:
        """`X = PyErr_NewException("pkg.mod.Name", base, dict)`: a class of the module."""
        call = node.parent
        if call is None or call.type != "call_expression":
            return
        args = _arguments(call)
        if not args or args[0][0].type not in STRING_TYPES:
            return
        qualname = _joined(args[0]).strip('"')
        with_doc = text(node).endswith("WithDoc")
        base_arg = args[2] if with_doc and len(args) > 2 else args[1] if len(args) > 1 else None
        base = None if base_arg is None else cpython_class(_joined(base_arg))
        holder = call.parent
        while holder is not None and holder.type not in (
            "assignment_expression",
            "init_declarator",
        ):
            holder = (
                holder.parent
                if holder.type in ("cast_expression", "parenthesized_expression")
                else None
            )
        if holder is None:
            return
        target = holder.child_by_field_name("left") or holder.child_by_field_name("declarator")
        if target is None:
            return
        name = re.split(r"->|\.", source(target).lstrip("*"))[-1].strip()
        self.classes.append(
            DeclaredClass(
                name=name, qualname=qualname, base=None if base is None else qualified(base)
            )
        )

    def _functions(self, root: Node) -> tuple[NativeFunction, ...]:
        """Each function with a site or a binding, and what every function calls (for the
        call paths from a bound function to a check in a helper)."""
        out: list[NativeFunction] = []
        for node in _walk_functions(root):
            place = place_of(node.child_by_field_name("body") or node)
            calls = frozenset(_called(node))
            if calls:
                out.append(
                    NativeFunction(name=place.function, line=node.start_point[0] + 1, calls=calls)
                )
        return tuple(out)


# -- helpers -----------------------------------------------------------------------------


_MAX_CALL = 64 * 1024


def _balanced(data: bytes, start: int) -> int | None:
    """The offset after the `)` that closes the `(` at or after `start` (white space
    between), strings and character literals skipped; None when there is none nearby."""
    i, n = start, min(len(data), start + _MAX_CALL)
    while i < n and data[i] in b" \t\r\n\\":
        i += 1
    if i >= n or data[i] != 0x28:  # (
        return None
    depth = 0
    while i < n:
        c = data[i]
        if c in (0x22, 0x27):  # " '
            i += 1
            while i < n and data[i] != c:
                i += 2 if data[i] == 0x5C else 1
        elif c == 0x28:
            depth += 1
        elif c == 0x29:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _enclosing(node: Node) -> Node | None:
    """The macro body `node` is in (its preproc_arg), the node itself when it is code, or
    None when it is in a comment or a string literal."""
    current: Node | None = node
    while current is not None:
        kind = current.type
        if kind in (
            "comment",
            "string_literal",
            "raw_string_literal",
            "char_literal",
            "system_lib_string",
        ):
            return None
        if kind == "preproc_arg":
            return current
        if kind in ("compound_statement", "translation_unit", "function_definition"):
            return node
        current = current.parent
    return node


def _arguments(call: Node) -> list[list[Node]]:
    """A call's arguments, each the nodes between two top-level commas (a string split
    by a macro that tree-sitter could not read is several nodes, ERROR ones opened)."""
    args = call.child_by_field_name("arguments")
    if args is None:
        return []
    out: list[list[Node]] = []
    current: list[Node] = []

    def add(nodes: list[Node]) -> None:
        nonlocal current
        for child in nodes:
            kind = child.type
            if kind in ("(", ")") and child.parent == args:
                continue
            if kind == ",":
                out.append(current)
                current = []
            elif kind == "ERROR":
                add(list(child.children))
            elif kind != "comment":
                current.append(child)

    add(list(args.children))
    if current:
        out.append(current)
    return [a for a in out if a]


def _joined(nodes: list[Node]) -> str:
    return " ".join(source(n) for n in nodes)


def _hole(nodes: list[Node], conversion: str | None = None) -> Hole:
    expr = _joined(nodes)
    if expr.startswith(STRINGIFIED):
        expr = "#" + expr[len(STRINGIFIED) :]
    return Hole(expr=expr, conversion=conversion, tree=tree(nodes[0]) if len(nodes) == 1 else None)


def _compare(left: list[Node], op: str, right: list[Node]) -> Expr | None:
    from errdex.expr import compare

    if len(left) != 1 or len(right) != 1:
        return None
    return compare(tree(left[0]), op, tree(right[0]))  # type: ignore[arg-type]


def _check_guard(cond: list[Node]) -> Guard:
    return Guard(
        kind="if",
        test=_joined(cond),
        negated=True,  # the check throws when its condition is false
        line=cond[0].start_point[0] + 1,
        tree=tree(cond[0]) if len(cond) == 1 else None,
    )


def _streamed(args: list[list[Node]]) -> list[Part]:
    """The parts of a message streamed together from the argument expressions."""
    out: list[Part] = []
    for arg in args:
        for node in arg:
            out.extend(_parts(node))
    return out


def _parts(node: Node, depth: int = 0) -> list[Part]:
    """A C++ expression that makes text, as parts: literals as text, `+` and c10::str
    joined, std::to_string(x) and x.c_str() as the hole x, fmt::format by its format."""
    if depth > 50:
        return [Hole(expr=source(node))]
    got = string_parts(node)
    if got is not None:
        return got
    kind = node.type
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        inner = node.named_children[0]
        return _parts(inner, depth + 1)
    if kind == "identifier" and text(node).startswith(STRINGIFIED):
        return [Hole(expr="#" + text(node)[len(STRINGIFIED) :])]
    if kind == "binary_expression":
        op = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if (
            op is not None
            and text(op) == "+"
            and left is not None
            and right is not None
            and (_stringish(left) or _stringish(right))
        ):
            return _parts(left, depth + 1) + _parts(right, depth + 1)
    if kind == "call_expression":
        func = node.child_by_field_name("function")
        args = _arguments(node)
        called = "" if func is None else source(func)
        if func is not None and func.type == "template_function":
            name = func.child_by_field_name("name")
            called = "" if name is None else source(name)
        if called in _STREAMED:
            return _streamed(args)
        if called in _FORMATTED and args and args[0][0].type in STRING_TYPES:
            fmt = "".join(p.text for p in _streamed(args[:1]) if isinstance(p, Text))
            literal = {_joined(a): _streamed([a]) for a in args[1:] if a[0].type in STRING_TYPES}
            out: list[Part] = []
            for part in format_parts(fmt, [_joined(a) for a in args[1:]]):
                known = literal.get(part.expr) if isinstance(part, Hole) else None
                out.extend(known if known is not None else [part])
            return out
        if called in _WRAPPERS and len(args) == 1:
            return _parts(args[0][0], depth + 1) if len(args[0]) == 1 else [_hole(args[0])]
        if func is not None and func.type == "field_expression" and not args:
            field = func.child_by_field_name("field")
            receiver = func.child_by_field_name("argument")
            if field is not None and receiver is not None and text(field) in _TEXT_METHODS:
                return _parts(receiver, depth + 1)
    return [Hole(expr=source(node), tree=tree(node))]


def _stringish(node: Node) -> bool:
    if node.type in STRING_TYPES:
        return True
    if node.type == "call_expression":
        func = node.child_by_field_name("function")
        return func is not None and source(func) in _WRAPPERS | _STREAMED | _FORMATTED
    if node.type == "binary_expression":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        return any(side is not None and _stringish(side) for side in (left, right))
    return False


_MARK = "\ue000"  # where a piece of the format that is no literal stands


def _printf(fmt: list[Node], args: list[list[Node]]) -> list[Part]:
    """PyErr_Format's format, its conversions filled by the arguments in order."""
    pieces = _streamed([fmt])
    holes = [p for p in pieces if isinstance(p, Hole)]
    joined = "".join(p.text if isinstance(p, Text) else _MARK for p in pieces)
    exprs = [_joined(a) for a in args]
    out: list[Part] = []
    for i, chunk in enumerate(joined.split(_MARK)):
        if i:
            out.append(holes[i - 1])
        out.extend(printf_parts(chunk, exprs))
        used = sum(1 for p in printf_parts(chunk, exprs) if isinstance(p, Hole))
        exprs = exprs[used:]
    return _with_trees(out, args)


def _with_trees(parts: list[Part], args: list[list[Node]]) -> list[Part]:
    """Holes that name an argument get that argument's tree."""
    by_text = {_joined(a): a for a in args}
    out: list[Part] = []
    for part in parts:
        if isinstance(part, Hole) and part.tree is None and part.expr in by_text:
            nodes = by_text[part.expr]
            if len(nodes) == 1:
                part = Hole(expr=part.expr, conversion=part.conversion, tree=tree(nodes[0]))
        out.append(part)
    return out


def _handed_on(node: Node, end: int) -> int:
    """The last line of the statement after a PyErr_* call when it returns or jumps (the
    error handed to the caller), else `end`."""
    statement = node
    while statement.parent is not None and statement.type != "expression_statement":
        statement = statement.parent
    following = statement.next_named_sibling
    while following is not None and following.type == "comment":
        following = following.next_named_sibling
    if following is not None and following.type in ("return_statement", "goto_statement"):
        return following.end_point[0] + 1
    return end


def _function_ref(nodes: list[Node]) -> str | None:
    """The function an argument names: `&fn`, `fn`, `&ns::fn`, `TORCH_BOX(&fn)`,
    `py::overload_cast<...>(&fn)`."""
    if len(nodes) != 1:
        return None
    node = nodes[0]
    for _ in range(4):
        if node.type == "pointer_expression":
            inner = node.child_by_field_name("argument")
            if inner is None:
                return None
            node = inner
        elif node.type == "call_expression":
            args = _arguments(node)
            if len(args) != 1 or len(args[0]) != 1:
                return None
            node = args[0][0]
        else:
            break
    if node.type in ("identifier", "qualified_identifier"):
        return source(node)
    return None


def _is_dispatch_key(nodes: list[Node]) -> bool:
    shown = _joined(nodes)
    return shown.startswith(("torch::k", "c10::DispatchKey", "at::k", "k")) or shown.isupper()


def _owner_macro(node: Node) -> tuple[str | None, list[str]]:
    """The macro-defined block a binding call is in (`TORCH_LIBRARY_EXPAND(name, ops) {`,
    `PYBIND11_MODULE(name, m) {`), parsed as a function: its name and arguments."""
    current: Node | None = node
    while current is not None and current.type != "function_definition":
        current = current.parent
    if current is None:
        return None, []
    declarator = current.child_by_field_name("declarator")
    if declarator is None or declarator.type != "function_declarator":
        return None, []
    name = declarator.child_by_field_name("declarator")
    params = declarator.child_by_field_name("parameters")
    args = [] if params is None else [source(p) for p in params.named_children]
    return (None if name is None else text(name)), args


def _walk_functions(root: Node) -> list[Node]:
    out: list[Node] = []
    todo = [root]
    while todo:
        node = todo.pop()
        for child in node.named_children:
            kind = child.type
            if kind == "function_definition":
                out.append(child)
            elif kind in (
                "namespace_definition",
                "declaration_list",
                "class_specifier",
                "struct_specifier",
                "field_declaration_list",
                "template_declaration",
                "linkage_specification",
                "preproc_if",
                "preproc_ifdef",
                "preproc_else",
                "preproc_elif",
            ):
                todo.append(child)
    return out


def _called(fn: Node) -> list[str]:
    """The last names of what a function calls, found in its text."""
    body = fn.child_by_field_name("body")
    if body is None:
        return []
    raw = body.text or b""
    return [m.group(1).decode() for m in _CALL.finditer(raw)]


_CALL = re.compile(rb"\b([A-Za-z_]\w*)\s*(?:<[^<>;{}()]*>)?\s*\(")
