# Which Python exception each native way of failing becomes, as the libraries document
# their translations: PyTorch's checks (c10/util/Exception.h; torch/csrc/Exceptions.h
# turns c10::Error into RuntimeError, c10::ValueError into ValueError, ...), pybind11's
# translation of C++ standard exceptions and its own py::value_error & co. (pybind11 docs,
# "Exceptions"), CPython's PyExc_* objects, and PyO3's Py*Error types.
from __future__ import annotations

import builtins

# check macro -> (Python class, how its message is made)
# "args": the arguments after the condition, streamed together (c10::str);
# "all": every argument streamed (AT_ERROR has no condition);
# "op": a comparison of two values, glog style ("Check failed: a == b (1 vs. 2). ").
TORCH_CHECKS: dict[str, tuple[str, str]] = {
    "TORCH_CHECK": ("RuntimeError", "args"),
    "TORCH_CHECK_MSG": ("RuntimeError", "args"),
    "TORCH_CHECK_ALWAYS_SHOW_CPP_STACKTRACE": ("RuntimeError", "args"),
    "TORCH_CHECK_VALUE": ("ValueError", "args"),
    "TORCH_CHECK_TYPE": ("TypeError", "args"),
    "TORCH_CHECK_INDEX": ("IndexError", "args"),
    "TORCH_CHECK_NOT_IMPLEMENTED": ("NotImplementedError", "args"),
    "TORCH_CHECK_LINALG": ("torch.linalg.LinAlgError", "args"),
    "TORCH_CHECK_WITH": ("RuntimeError", "with"),
    "TORCH_INTERNAL_ASSERT": ("RuntimeError", "args"),
    "TORCH_INTERNAL_ASSERT_DEBUG_ONLY": ("RuntimeError", "args"),
    "AT_ASSERT": ("RuntimeError", "args"),
    "AT_ASSERTM": ("RuntimeError", "args"),
    "AT_ERROR": ("RuntimeError", "all"),
    "STD_TORCH_CHECK": ("RuntimeError", "args"),
    # the stable-ABI check of a condition that says "not implemented": a std::runtime_error
    # (vllm defines it as STD_TORCH_CHECK with a "NotImplementedError: " prefix)
    "STD_TORCH_CHECK_NOT_IMPLEMENTED": ("RuntimeError", "args"),
    "TORCH_CHECK_EQ": ("RuntimeError", "op"),
    "TORCH_CHECK_NE": ("RuntimeError", "op"),
    "TORCH_CHECK_LE": ("RuntimeError", "op"),
    "TORCH_CHECK_LT": ("RuntimeError", "op"),
    "TORCH_CHECK_GE": ("RuntimeError", "op"),
    "TORCH_CHECK_GT": ("RuntimeError", "op"),
    "STD_TORCH_CHECK_EQ": ("RuntimeError", "op"),
    "STD_TORCH_CHECK_NE": ("RuntimeError", "op"),
    "STD_TORCH_CHECK_LE": ("RuntimeError", "op"),
    "STD_TORCH_CHECK_LT": ("RuntimeError", "op"),
    "STD_TORCH_CHECK_GE": ("RuntimeError", "op"),
    "STD_TORCH_CHECK_GT": ("RuntimeError", "op"),
}
CHECK_OPS = {"EQ": "==", "NE": "!=", "LE": "<=", "LT": "<", "GE": ">=", "GT": ">"}
# What TORCH_CHECK says when it is given no message: the condition, stringified.
DEFAULT_CHECK = "Expected {cond} to be true, but got false.  "
DEFAULT_CHECK_TAIL = (
    "(Could this error message be improved?  If so, please report an enhancement request "
    "to PyTorch.)"
)
# C10_THROW_ERROR(ErrorType, msg): c10's error classes
C10_ERRORS = {
    "Error": "RuntimeError",
    "ValueError": "ValueError",
    "TypeError": "TypeError",
    "IndexError": "IndexError",
    "NotImplementedError": "NotImplementedError",
    "EnforceFiniteError": "RuntimeError",
    "OutOfMemoryError": "torch.OutOfMemoryError",
    "LinAlgError": "torch.linalg.LinAlgError",
    "DistError": "torch.distributed.DistError",
}

# pybind11's translation of the C++ standard exceptions (pybind11 docs, "Exceptions")
PYBIND11_STD = {
    "exception": "RuntimeError",
    "runtime_error": "RuntimeError",
    "logic_error": "RuntimeError",
    "bad_alloc": "MemoryError",
    "domain_error": "ValueError",
    "invalid_argument": "ValueError",
    "length_error": "ValueError",
    "out_of_range": "IndexError",
    "range_error": "ValueError",
    "overflow_error": "OverflowError",
    "underflow_error": "ArithmeticError",
    "bad_cast": "RuntimeError",
    "system_error": "RuntimeError",
}
# pybind11's own exception classes (py::value_error & co.)
PYBIND11_OWN = {
    "stop_iteration": "StopIteration",
    "index_error": "IndexError",
    "key_error": "KeyError",
    "value_error": "ValueError",
    "type_error": "TypeError",
    "buffer_error": "BufferError",
    "import_error": "ImportError",
    "attribute_error": "AttributeError",
    "cast_error": "RuntimeError",
    "reference_cast_error": "RuntimeError",
}

_BUILTIN_EXCEPTIONS = frozenset(
    name
    for name in dir(builtins)
    if isinstance(getattr(builtins, name), type)
    and issubclass(getattr(builtins, name), BaseException)
)
_ALIASES = {"IOError": "OSError", "EnvironmentError": "OSError", "WindowsError": "OSError"}


def builtin(name: str) -> str | None:
    """`name` as a builtin exception class ("ValueError"), its alias folded; else None."""
    name = _ALIASES.get(name, name)
    return name if name in _BUILTIN_EXCEPTIONS else None


def qualified(python_class: str) -> str:
    """The qualified name of a Python class named here: builtins.X for a builtin."""
    return f"builtins.{python_class}" if builtin(python_class) else python_class


def cpython_class(written: str) -> str | None:
    """The builtin class of a CPython exception object (`PyExc_ValueError`); else None."""
    name = written.rsplit("->", 1)[-1].rsplit(".", 1)[-1].lstrip("*&(")
    if name.startswith("PyExc_"):
        return builtin(name[len("PyExc_") :])
    return None


def pyo3_class(written: str) -> str | None:
    """The builtin class of a PyO3 exception type (`PyValueError`,
    `pyo3::exceptions::PyTypeError`); else None."""
    name = written.rsplit("::", 1)[-1]
    if name.startswith("Py") and len(name) > 2:
        return builtin(name[2:])
    return None
