# What one native file tells on its own: its error sites as written (the class not yet
# resolved across files), the exception classes it declares, the functions it exposes to
# Python, the message templates of an error enum, and which functions call which.
# Picklable, cached by content hash like a Python file's facts.
from __future__ import annotations

from dataclasses import dataclass

from errdex.model import Guard, Input, Location, Message, Snippet


@dataclass(frozen=True, kw_only=True)
class NativeSite:
    """An error site as seen inside one native file."""

    # how it fails, as written: "TORCH_CHECK", "throw std::invalid_argument",
    # "PyErr_Format PyExc_ValueError", "new_err PyValueError", "variant ErrorType::IntParsing"
    form: str
    # the class or object raised as the code names it: "std::invalid_argument",
    # "PyExc_ValueError", "st->MyError", "PyValueError", "ErrorType::IntParsing"
    raised: str
    python_class: str | None  # the Python class when the form alone says it
    message: Message | None  # None: the message is a variant's template, found by linking
    location: Location
    snippet: Snippet
    guard: tuple[Guard, ...]
    inputs: tuple[Input, ...]
    variant: str | None = None


@dataclass(frozen=True, kw_only=True)
class DeclaredClass:
    """An exception class the file creates for Python: `PyErr_NewException("m.E", ...)`,
    `create_exception!(m, E, PyValueError)`, `#[pyclass(extends=PyValueError)]`."""

    name: str  # as the code refers to it: "MyError", "PydanticSerializationError"
    qualname: str  # as Python names it: "pkg._ext.MyError"
    base: str | None  # qualified base class, when given


@dataclass(frozen=True, kw_only=True)
class Binding:
    """A native function Python can call: `m.def("name", &fn)`, an `ops.impl` of a torch
    library, `#[pyfunction]`, a PyMethodDef entry."""

    python: str  # as Python calls it: "torch.ops._C.rms_norm", "validate_core_schema"
    native: str  # the native function's name: "rms_norm", "SchemaValidator::validate_python"
    line: int


@dataclass(frozen=True, kw_only=True)
class VariantTemplate:
    """The message an error enum's variant renders (`Self::IntParsing { .. } => "..."`)."""

    enum: str  # "ErrorType"
    variant: str  # "IntParsing"
    message: Message
    kind: str  # what the template is for: "python", "json"
    line: int
    snippet: Snippet  # the source around the template


@dataclass(frozen=True, kw_only=True)
class NativeFunction:
    """A function defined in the file, and the names it calls."""

    name: str  # qualified as sites' `location.function` are
    line: int
    calls: frozenset[str]  # last names called: "check_inputs", "validate"


@dataclass(frozen=True, kw_only=True)
class NativeFacts:
    path: str
    language: str  # "c", "cpp", "cuda" or "rust"
    sites: tuple[NativeSite, ...]
    classes: tuple[DeclaredClass, ...] = ()
    bindings: tuple[Binding, ...] = ()
    templates: tuple[VariantTemplate, ...] = ()
    functions: tuple[NativeFunction, ...] = ()
    torch_library: bool = False  # registers torch operators (TORCH_LIBRARY*)
    lines: int = 0
