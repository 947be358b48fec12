# Errors raised in compiled code, which errdex does not read (it reads Python source): the
# last frame of the traceback failed at a call of a function or class of an extension
# module (pydantic_core's validator, a numpy routine), or the class raised is one of an
# extension module's. The call is found as the traceback's carets find it (the failing
# instruction's source position), parsed for its callee's dotted name (never run), and
# the callee found in the frame by name and attribute only, as _values reads inputs:
# nothing of the user's runs.
# Builtins and the standard library's own C code are not told: a ValueError of int() is
# plain Python's.
from __future__ import annotations

import linecache
import sys
import types
from importlib.machinery import EXTENSION_SUFFIXES

from errdex.hook import _values

__all__ = ["Compiled", "call_into", "class_of"]

_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made at run time, not a C static type
_TYPE_FLAGS = type.__dict__["__flags__"]
_TYPE_MODULE = type.__dict__["__module__"]
_TYPE_QUALNAME = type.__dict__["__qualname__"]
_BUILTIN_SELF = types.BuiltinFunctionType.__dict__["__self__"]
_BUILTIN_MODULE = types.BuiltinFunctionType.__dict__["__module__"]
_DESCRIPTOR_TYPES = (
    types.MethodDescriptorType,
    types.WrapperDescriptorType,
    types.ClassMethodDescriptorType,
    types.MethodWrapperType,
)
_MAX_CALL = 2000  # characters of source of the failing call that are read


class Compiled:
    """Where compiled code raised: the call as written (or None) and the module."""

    def __init__(self, call: str | None, module: str) -> None:
        self.call = call
        self.module = module


def call_into(frame: types.FrameType, lasti: int) -> Compiled | None:
    """The call of compiled code that the frame failed at (its instruction `lasti`), when
    the callee lives in an extension module (or is C code of a module outside the
    standard library), else None."""
    source = _failing_source(frame.f_code, lasti)
    parts = None if source is None else _callee_name(source)
    if parts is None:
        return None
    callee = _callee(parts, frame)
    if callee is _values.MISSING:
        return None
    module = _compiled_module(callee)
    if module is None:
        return None
    return Compiled(".".join(parts) + "(...)", module)


def class_of(kind: type[BaseException]) -> Compiled | None:
    """The extension module the exception class `kind` is defined in, or None."""
    module = _TYPE_MODULE.__get__(kind, type)
    if isinstance(module, str) and _is_compiled(module, static=_static(kind)):
        return Compiled(None, module)
    return None


def qualname(kind: type) -> str:
    """`module.Qualname` of a class, read without running any of its code."""
    module = _TYPE_MODULE.__get__(kind, type)
    name = _TYPE_QUALNAME.__get__(kind, type)
    return f"{module}.{name}" if isinstance(module, str) and module != "builtins" else str(name)


def _failing_source(code: types.CodeType, lasti: int) -> str | None:
    """The source of the expression at instruction offset `lasti` of `code`, as the
    traceback's carets mark it."""
    if lasti < 0:
        return None
    positions = iter(code.co_positions())
    for _ in range(lasti // 2):
        if next(positions, None) is None:
            return None
    found = next(positions, None)
    if found is None or None in found:
        return None
    start, end, start_col, end_col = found
    assert start is not None and end is not None and start_col is not None
    assert end_col is not None
    if end - start > 50:
        return None
    lines = [linecache.getline(code.co_filename, n) for n in range(start, end + 1)]
    if not all(lines):
        return None
    # the columns count UTF-8 bytes
    encoded = [line.encode("utf-8") for line in lines]
    encoded[-1] = encoded[-1][:end_col]
    encoded[0] = encoded[0][start_col:]
    text = b"".join(encoded).decode("utf-8", "replace")
    return text if len(text) <= _MAX_CALL else None


def _callee_name(source: str) -> list[str] | None:
    """The dotted name called by the call expression `source` (`a.b.c(...)` -> a, b, c),
    or None when it is no call of a dotted name (a statement, `f()()`, `x[0](...)`)."""
    import ast  # parsed, never run

    try:
        node = ast.parse("(\n" + source + "\n)", mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return None
    parts.append(func.id)
    return parts[::-1]


def _callee(parts: list[str], frame: types.FrameType) -> object:
    """The object `parts` names in the frame, found without running user code: names in
    the locals, globals, then builtins; attributes as stored, or the raw descriptor a
    class holds (a C method's)."""
    try:
        f_locals = dict(frame.f_locals)
        f_globals = frame.f_globals
    except Exception:
        return _values.MISSING
    if len(parts) == 1:
        found = _values.read(parts[0], f_locals, f_globals)
        if found is _values.MISSING:
            builtins = f_globals.get("__builtins__")
            space = builtins if type(builtins) is dict else vars(sys.modules["builtins"])
            found = space.get(parts[0], _values.MISSING)
        return found
    owner = _values.read(".".join(parts[:-1]), f_locals, f_globals)
    if owner is _values.MISSING:
        return owner
    found = _values.attribute(owner, parts[-1])
    if found is not _values.MISSING:
        return found
    for klass in type.__dict__["__mro__"].__get__(type(owner), type):
        space = type.__dict__["__dict__"].__get__(klass, type)
        if parts[-1] in space:
            return space[parts[-1]]
    return _values.MISSING


def _compiled_module(callee: object) -> str | None:
    """The module of compiled code `callee` is, or None for Python code, builtins and the
    standard library's C."""
    kind = type(callee)
    if kind is types.BuiltinFunctionType:
        owner = _BUILTIN_SELF.__get__(callee, kind)
        if type(owner) is types.ModuleType:
            name = vars(owner).get("__name__")
        elif owner is None:
            name = _BUILTIN_MODULE.__get__(callee, kind)
        else:  # a bound C method: its class's module
            return _compiled_module_of_class(type(owner))
        return name if isinstance(name, str) and _is_compiled(name, static=True) else None
    if kind in _DESCRIPTOR_TYPES:
        objclass = getattr(kind, "__objclass__", None)
        owner = objclass.__get__(callee, kind) if objclass is not None else None
        return _compiled_module_of_class(owner) if isinstance(owner, type) else None
    if isinstance(callee, type):
        return _compiled_module_of_class(callee)
    return _compiled_module_of_class(kind)  # an object of a compiled class, called


def _compiled_module_of_class(klass: type) -> str | None:
    module = _TYPE_MODULE.__get__(klass, type)
    if isinstance(module, str) and _is_compiled(module, static=_static(klass)):
        return module
    return None


def _static(klass: type) -> bool:
    return not int(_TYPE_FLAGS.__get__(klass, type)) & _HEAP_TYPE


def _is_compiled(module: str, *, static: bool) -> bool:
    """Whether `module` names an extension module (a file of compiled code) or, for C
    code known as such (`static`), any module outside the standard library."""
    top = module.partition(".")[0]
    if top in sys.stdlib_module_names or top == "builtins" or not top:
        return False
    found = sys.modules.get(module)
    path = None
    if isinstance(found, types.ModuleType):
        path = vars(found).get("__file__")
    if isinstance(path, str) and path.endswith(tuple(EXTENSION_SUFFIXES)):
        return True
    return static
