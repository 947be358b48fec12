# Native sources, one language and form at a time: code in, sites out (message parts
# and holes, the Python class, guards as trees, inputs), then what a small tree gives
# end to end (which files count, hostile ones skipped with a reason, the summary's
# counts, matching a native message in a real SQLite store).
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import httpx
import pytest

from errdex import codec
from errdex.expr import BoolOp, Call, Compare, Not
from errdex.extract import packing, scan
from errdex.extract.cache import NoCache
from errdex.extract.native.files import native_walk
from errdex.extract.pipeline import extract
from errdex.index import index_snapshot
from errdex.match import Matcher
from errdex.model import Hole, Snapshot, Text
from errdex.store import open_store
from errdex.store.facts import SqliteFactsCache
from tests.conftest import only, write_tree
from tests.native_support import by_message, native_snippet
from tests.web_support import running

# -- C: the CPython API ------------------------------------------------------------------


def test_pyerr_setstring_is_a_value_error_under_its_condition() -> None:
    site = only(
        native_snippet(
            """
            static PyObject *
            take(PyObject *self, PyObject *args)
            {
                Py_ssize_t n = PyTuple_GET_SIZE(args);
                if (n > 3) {
                    PyErr_SetString(PyExc_ValueError, "too many arguments");
                    return NULL;
                }
                Py_RETURN_NONE;
            }
            """,
            path="src/mod.c",
        )
    )
    assert site.location.language == "c"
    assert site.location.function == "take"
    assert (site.exception.name, site.exception.qualname) == ("ValueError", "builtins.ValueError")
    assert site.message is not None and site.message.text == "too many arguments"
    assert site.location.end_line == site.location.line + 1  # the `return NULL;` after it
    (guard,) = site.guard
    assert (guard.kind, guard.test, guard.negated) == ("if", "n > 3", False)
    assert isinstance(guard.tree, Compare)


def test_pyerr_format_holes_follow_the_printf_conversions() -> None:
    site = only(
        native_snippet(
            """
            int check(PyObject *obj, Py_ssize_t size, int64_t big) {
                PyErr_Format(PyExc_TypeError,
                             "expected %d items, got %zd (%R) %" PRId64 " %.200s 100%%",
                             3, size, obj, big, Py_TYPE(obj)->tp_name);
                return -1;
            }
            """,
            path="src/mod.c",
        )
    )
    assert site.exception.name == "TypeError"
    assert site.message is not None
    assert site.message.text == (
        "expected {3} items, got {size} ({obj!r}) {big} {Py_TYPE(obj)->tp_name} 100%"
    )
    holes = [p for p in site.message.parts if isinstance(p, Hole)]
    assert [h.expr for h in holes] == ["3", "size", "obj", "big", "Py_TYPE(obj)->tp_name"]
    assert [i.name for i in site.inputs if i.kind == "parameter"] == ["size", "obj", "big"]


def test_pyerr_setobject_nomemory_and_a_module_exception() -> None:
    sites = native_snippet(
        """
        static PyObject *ParseError;

        static int init(PyObject *m) {
            ParseError = PyErr_NewException("pkg._speedups.ParseError", PyExc_ValueError, NULL);
            return 0;
        }

        static PyObject *parse(PyObject *self, PyObject *text) {
            char *buf = malloc(10);
            if (buf == NULL) {
                return PyErr_NoMemory();
            }
            if (!valid(text)) {
                PyErr_SetObject(ParseError, text);
                goto fail;
            }
            PyErr_Format(ParseError, "bad byte at %d", 3);
            return NULL;
        fail:
            return NULL;
        }
        """,
        path="src/_speedups.c",
    )
    memory, own, formatted = sites
    assert memory.exception.name == "MemoryError" and memory.message is None
    assert own.exception.qualname == "pkg._speedups.ParseError"
    assert own.exception.bases == ("builtins.ValueError",)
    assert own.message is not None and own.message.parts == (Hole(expr="text"),)
    assert own.guard[0].negated is False and isinstance(own.guard[0].tree, Not)
    assert formatted.message is not None and formatted.message.text == "bad byte at {3}"


def test_c_guards_of_else_if_switch_and_ifdef() -> None:
    sites = native_snippet(
        """
        int f(int kind, int n) {
        #ifdef WITH_THREADS
            switch (kind) {
            case 1:
                if (n < 0) {
                    return 0;
                } else if (n > 10) {
                    PyErr_SetString(PyExc_OverflowError, "n is too big");
                }
                break;
            default:
                PyErr_SetString(PyExc_KeyError, "no such kind");
            }
        #endif
            return 1;
        }
        """,
        path="src/mod.c",
    )
    big, unknown = sites
    assert [(g.kind, g.test, g.negated) for g in big.guard] == [
        ("if", "defined(WITH_THREADS)", False),
        ("case", "kind == 1", False),
        ("if", "n < 0", True),
        ("elif", "n > 10", False),
    ]
    assert [(g.kind, g.test) for g in unknown.guard][-1] == ("case", "default")


def test_a_method_table_binds_the_c_function() -> None:
    from tests.native_support import native_facts

    facts = native_facts(
        """
        static PyObject *spam_system(PyObject *self, PyObject *args) { return NULL; }
        static PyMethodDef SpamMethods[] = {
            {"system", (PyCFunction)spam_system, METH_VARARGS, "Run a command."},
            {NULL, NULL, 0, NULL}
        };
        """,
        "src/spam.c",
    )
    assert [(b.python, b.native) for b in facts.bindings] == [("system", "spam_system")]


# -- C++: PyTorch's checks, throw, pybind11 -------------------------------------------------


def test_torch_check_streams_its_arguments_into_the_message() -> None:
    site = only(
        native_snippet(
            """
            void rms_norm(torch::Tensor& out, torch::Tensor& input, double epsilon) {
              TORCH_CHECK(input.is_contiguous() && out.dim() == 2,
                          "input must be contiguous, got strides ", input.strides(),
                          " and eps=", epsilon);
            }
            """
        )
    )
    assert site.location.language == "cpp"
    assert site.exception.qualname == "builtins.RuntimeError"
    assert site.message is not None
    assert site.message.text == (
        "input must be contiguous, got strides {input.strides()} and eps={epsilon}"
    )
    (guard,) = site.guard
    assert guard.negated is True  # the check throws when its condition is false
    assert isinstance(guard.tree, BoolOp) and guard.tree.op == "and"
    assert guard.holds() == "not input.is_contiguous() or out.dim() != 2"
    kinds = {(i.kind, i.name, i.expr, i.type or i.owner) for i in site.inputs}
    assert ("parameter", "input", "input", "torch::Tensor&") in kinds
    # a property read on a parameter: its owner is the parameter's type
    assert ("property", "is_contiguous", "input.is_contiguous()", "torch::Tensor&") in kinds
    assert ("parameter", "epsilon", "epsilon", "double") in kinds


def test_a_check_with_no_message_says_its_condition() -> None:
    site = only(native_snippet("void f(int n) { STD_TORCH_CHECK(n % 16 == 0); }"))
    assert site.message is not None and site.message.static
    assert site.message.text.startswith("Expected n % 16 == 0 to be true, but got false.  (Could")


@pytest.mark.parametrize(
    ("call", "name", "text"),
    [
        ('TORCH_CHECK_VALUE(n > 0, "n must be positive")', "ValueError", "n must be positive"),
        ('TORCH_CHECK_TYPE(ok, "wrong type")', "TypeError", "wrong type"),
        ('TORCH_CHECK_INDEX(i < n, "index ", i)', "IndexError", "index {i}"),
        ('TORCH_CHECK_NOT_IMPLEMENTED(false, "no kernel")', "NotImplementedError", "no kernel"),
        ('TORCH_INTERNAL_ASSERT(n == 1, "bad state")', "RuntimeError", "bad state"),
        ('AT_ERROR("unsupported dtype ", dtype)', "RuntimeError", "unsupported dtype {dtype}"),
        (
            "TORCH_CHECK_EQ(a.size(0), n)",
            "RuntimeError",
            "Check failed: a.size(0) == n ({a.size(0)} vs. {n}). ",
        ),
        (
            'C10_THROW_ERROR(ValueError, "bad " + name)',
            "ValueError",
            "bad {name}",
        ),
    ],
)
def test_each_torch_macro_raises_its_python_class(call: str, name: str, text: str) -> None:
    site = only(native_snippet(f"void f(at::Tensor a, int n, int i) {{ {call}; }}"))
    assert site.exception.name == name
    assert site.message is not None and site.message.text == text


def test_throw_std_and_pybind11_classes_as_pybind11_translates_them() -> None:
    sites = native_snippet(
        """
        int pick(int n, const std::string& name) {
          if (n < 0) throw std::invalid_argument("n must be >= 0, got " + std::to_string(n));
          if (n > 9) throw std::out_of_range("too far: " + name);
          if (n == 5) throw py::value_error(fmt::format("five is {} for {}", "reserved", name));
          if (n == 6) throw std::runtime_error(std::string("six: ") + name.c_str());
          throw py::error_already_set();
        }
        PYBIND11_MODULE(_ext, m) { m.def("pick", &pick); }
        """
    )
    assert [(s.exception.name, s.message and s.message.text) for s in sites] == [
        ("ValueError", "n must be >= 0, got {n}"),
        ("IndexError", "too far: {name}"),
        ("ValueError", "five is reserved for {name}"),
        ("RuntimeError", "six: {name}"),
    ]


def test_a_torch_library_turns_std_exceptions_into_runtime_error() -> None:
    sites = native_snippet(
        """
        void op(torch::Tensor x) {
          throw std::invalid_argument("bad x");
        }
        TORCH_LIBRARY(my_ops, m) { m.def("op(Tensor x) -> ()"); m.impl("op", torch::kCUDA, &op); }
        """
    )
    assert only(sites).exception.name == "RuntimeError"


def test_a_check_in_a_macro_body_has_the_stringified_argument_as_a_hole() -> None:
    sites = native_snippet(
        """
        #define CHECK_CUDA(x) TORCH_CHECK(x.is_cuda(), #x " must be a CUDA tensor")
        #define DISPATCH(TYPE, ...)                                 \\
          switch (TYPE) {                                           \\
            __VA_ARGS__                                             \\
            default:                                                \\
              STD_TORCH_CHECK(false, "dispatch failed for ", TYPE) \\
          }
        """
    )
    cuda, dispatch = sites
    assert cuda.location.function == "CHECK_CUDA"
    assert cuda.message is not None and cuda.message.text == "{#x} must be a CUDA tensor"
    assert isinstance(cuda.guard[-1].tree, Call)
    assert dispatch.location.line == 7  # on its own line, though read apart from the file
    # the body lacks the `;` after the check: the call is read on its own, its message
    # whole (the `default:` around it is lost with the statement tree-sitter could not read)
    assert dispatch.message is not None and dispatch.message.text == "dispatch failed for {TYPE}"


def test_checks_in_comments_and_strings_are_no_sites() -> None:
    sites = native_snippet(
        """
        // TORCH_CHECK(false, "commented out");
        /* throw std::runtime_error("nor this"); */
        const char* doc = "TORCH_CHECK(x) documents it";
        void f(int x) { TORCH_CHECK(x > 0, "the one"); }
        """
    )
    assert [s.message and s.message.text for s in sites] == ["the one"]


def test_a_cuda_file_is_read_with_the_cuda_grammar() -> None:
    site = only(
        native_snippet(
            """
            template <typename T>
            __global__ void scale_kernel(T* out, const T* in, int n) {
              int i = blockIdx.x * blockDim.x + threadIdx.x;
              if (i < n) out[i] = in[i] * 2;
            }

            void scale(torch::Tensor& out, torch::Tensor const& in) {
              TORCH_CHECK(in.scalar_type() == at::kFloat,
                          "scale: only float, got ", in.scalar_type());
              scale_kernel<float><<<1, 256>>>(out.data_ptr<float>(), in.data_ptr<float>(),
                                               in.numel());
            }
            """,
            path="csrc/scale.cu",
        )
    )
    assert site.location.language == "cuda"
    assert site.location.function == "scale"
    assert (
        site.message is not None
        and site.message.text == "scale: only float, got {in.scalar_type()}"
    )


# -- Rust / PyO3 -------------------------------------------------------------------------------


def test_new_err_with_format_holes() -> None:
    sites = native_snippet(
        """
        use pyo3::exceptions::{PyValueError, PyTypeError};

        #[pyfunction]
        fn parse(width: usize, name: &str) -> PyResult<()> {
            if width > 80 && !name.is_empty() {
                return Err(PyValueError::new_err(
                    format!("width {} too big for {name}: {:?}", width, name)
                ));
            }
            Err(PyTypeError::new_err("no".to_string()))
        }

        #[cfg(test)]
        mod tests {
            fn t() { let _ = PyValueError::new_err("a test"); }
        }
        """,
        path="src/lib.rs",
    )
    big, no = sites
    assert big.location.language == "rust"
    assert big.exception.qualname == "builtins.ValueError"
    assert (
        big.message is not None and big.message.text == "width {width} too big for {name}: {name:?}"
    )
    assert [g.test for g in big.guard] == ["width > 80 && !name.is_empty()"]
    assert [i.name for i in big.inputs if i.kind == "parameter"] == ["width", "name"]
    assert no.exception.name == "TypeError" and no.message is not None and no.message.text == "no"


def test_py_err_macro_and_classes_declared_for_python() -> None:
    sites = native_snippet(
        """
        create_exception!(mylib, Boom, PyException);

        #[pyclass(extends=PyValueError, module="mylib._core", name="SchemaError")]
        pub struct SchemaError {}

        impl SchemaError {
            pub fn new_err(msg: String) -> PyErr { PyErr::new::<Self, _>(msg) }
        }

        fn go(x: i64) -> PyResult<()> {
            if x == 0 { return py_err!(Boom; "x is {}", x); }
            Err(SchemaError::new_err(format!("bad schema {x}")))
        }
        """,
        path="src/lib.rs",
    )
    new, boom, schema = sites
    assert new.exception.qualname == "mylib._core.SchemaError"
    assert new.exception.bases == ("builtins.ValueError",)
    assert boom.exception.qualname == "mylib.Boom"
    assert boom.message is not None and boom.message.text == "x is {x}"
    assert schema.exception.name == "SchemaError"
    assert schema.message is not None and schema.message.text == "bad schema {x}"


INT_PARSING = "Input should be a valid integer, unable to parse string as an integer"
ERROR_TYPES = """
    impl ErrorType {
        pub fn message_template_python(&self) -> &'static str {
            match self {
                Self::IntParsing { .. } => "Input should be a valid integer, unable to parse \\
                    string as an integer",
                Self::TooLong { .. } => {
                    "{field_type} should have at most {max_length} items"
                }
                Self::Never { .. } | Self::Other { .. } => "Never built here",
            }
        }
        pub fn message_template_json(&self) -> &'static str {
            match self {
                Self::TooLong { .. } => "Array should have at most {max_length} items",
                _ => self.message_template_python(),
            }
        }
    }
    #[pyclass(extends=PyValueError, module="pydantic_core._pydantic_core")]
    pub struct ValidationError {}
"""


def test_an_error_enum_templates_become_sites_where_variants_are_built() -> None:
    sites = native_snippet(
        """
        pub fn str_as_int(s: &str) -> ValResult<i64> {
            match s.parse::<i64>() {
                Ok(i) => Ok(i),
                Err(_) => Err(ValError::new(ErrorTypeDefaults::IntParsing, s)),
            }
        }
        fn check(len: usize, max_length: usize) -> ValResult<()> {
            if len > max_length {
                let kind = ErrorType::TooLong {
                    field_type: "List".into(), max_length, context: None
                };
                return Err(ValError::new(kind, len));
            }
            Ok(())
        }
        """,
        path="src/input/shared.rs",
        others={"src/errors/types.rs": ERROR_TYPES},
    )
    parsing = by_message(sites, INT_PARSING)
    assert parsing.exception.qualname == "pydantic_core._pydantic_core.ValidationError"
    assert parsing.location.function == "str_as_int"
    assert [g.test for g in parsing.guard] == ["Err(_)"]
    too_long = by_message(sites, "{field_type} should have at most {max_length} items")
    assert too_long.message is not None
    literal = next(p for p in too_long.message.parts if isinstance(p, Text))
    assert literal.text == " should have at most "
    json_form = by_message(sites, "Array should have at most {max_length} items")
    assert json_form.variant == "json input"


def test_a_variant_no_code_builds_is_a_site_at_its_template() -> None:
    sites = native_snippet(ERROR_TYPES, path="src/errors/types.rs")
    texts = [s.message.text for s in sites if s.message is not None]
    assert texts.count("Never built here") == 2  # Never and Other, one site each
    never = by_message(sites, INT_PARSING)
    assert never.location.function == "ErrorType::message_template_python"


# -- a tree end to end ---------------------------------------------------------------------------


TREE = {
    "pkg/__init__.py": "def run(x):\n    if x < 0:\n        raise ValueError('x must be >= 0')\n",
    "csrc/ops.cpp": 'void op(torch::Tensor x) { TORCH_CHECK(x.is_cuda(), "x must be on CUDA"); }\n',
    "csrc/kernels/k.cu": 'void k(int n) { STD_TORCH_CHECK(n > 0, "n must be positive, got ", n); }',
    "src/lib.rs": 'fn f(x: u8) -> PyResult<()> { Err(PyValueError::new_err(format!("bad {x}"))) }',
    "csrc/tests/test_ops.cpp": 'void t() { TORCH_CHECK(false, "a test"); }\n',
    "csrc/third_party/lib.c": 'void v() { PyErr_SetString(PyExc_ValueError, "vendored"); }\n',
    "csrc/sub/vendored.c": 'void w() { PyErr_SetString(PyExc_ValueError, "a submodule"); }\n',
    ".gitmodules": '[submodule "x"]\n\tpath = csrc/sub\n\turl = https://example.invalid/x.git\n',
    "docs/example.c": 'void d() { PyErr_SetString(PyExc_ValueError, "docs"); }\n',
    "csrc/test_helpers.cc": 'void h() { TORCH_CHECK(false, "a test file"); }\n',
}


def _snapshot(root: Path, code_paths: tuple[str, ...] = ("pkg",)) -> Snapshot:
    return Snapshot(
        package="pkg", version="1.0", root=root, source=str(root), code_paths=code_paths
    )


def test_which_native_files_count_follows_the_package_code_rules(tmp_path: Path) -> None:
    write_tree(tmp_path, TREE)
    assert native_walk(tmp_path, ("pkg",)).paths == [
        "csrc/kernels/k.cu",
        "csrc/ops.cpp",
        "src/lib.rs",
    ]
    assert native_walk(tmp_path, ("csrc/kernels",)).paths == ["csrc/kernels/k.cu"]  # --path
    whole = native_walk(tmp_path, ()).paths  # --whole-tree
    assert "csrc/tests/test_ops.cpp" in whole and "docs/example.c" in whole


def test_a_tree_with_native_sources_end_to_end(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "tree", TREE)
    store = open_store(tmp_path / "errdex.sqlite")
    result = index_snapshot(_snapshot(root), store, cache_path=tmp_path / "facts.sqlite")
    assert result.native == (("cpp", 1, 1), ("cuda", 1, 1), ("rust", 1, 1))
    assert result.site_count == 4 and result.files == 1
    assert codec.index_result_to_json(result)["native"] == [
        {"language": "cpp", "files": 1, "sites": 1},
        {"language": "cuda", "files": 1, "sites": 1},
        {"language": "rust", "files": 1, "sites": 1},
    ]
    found = Matcher(store).match("RuntimeError: n must be positive, got -3")
    best = found.matches[0]
    assert (best.file, best.values, best.exact) == ("csrc/kernels/k.cu", {"n": "-3"}, True)
    record = store.get(best.id)
    assert record is not None and record.site.explanation is not None
    data = json.loads(json.dumps(codec.record_to_json(record)))
    assert data["location"]["language"] == "cuda"
    with running(store) as base:  # the error page shows the snippet as CUDA, not Python
        page = httpx.get(f"{base}/errors/{best.id}", timeout=30)
    assert page.status_code == 200
    assert '<span class="kt">void</span>' in page.text
    again = index_snapshot(_snapshot(root), store, cache_path=tmp_path / "facts.sqlite")
    assert again.unchanged
    (root / "csrc/ops.cpp").write_text('void op(int x) { TORCH_CHECK(x, "changed"); }\n')
    changed = index_snapshot(_snapshot(root), store, cache_path=tmp_path / "facts.sqlite")
    assert not changed.unchanged and changed.native[0] == ("cpp", 1, 1)
    python_only = index_snapshot(
        _snapshot(root), store, cache_path=tmp_path / "facts.sqlite", native=False, force=True
    )
    assert python_only.native == () and python_only.site_count == 1
    store.close()


def test_native_facts_are_kept_in_the_cache_as_data_and_read_back(tmp_path: Path) -> None:
    """The per-file cache keeps a native file's facts as it keeps a Python file's (data,
    never a pickle): a second extract parses no native file and finds the same sites."""
    root = write_tree(tmp_path / "tree", TREE)
    snapshot = _snapshot(root)
    found = []
    for _ in range(2):
        cache = SqliteFactsCache(tmp_path / "facts.sqlite")
        try:
            found.append(extract(snapshot, scan(snapshot, cache), cache, workers=1))
        finally:
            cache.close()
    first, second = found
    assert first.native_parsed == 3 and second.native_parsed == 0
    assert second.native == first.native == (("cpp", 1, 1), ("cuda", 1, 1), ("rust", 1, 1))
    assert second.sites == first.sites
    with sqlite3.connect(tmp_path / "facts.sqlite") as db:
        kept = [data for (data,) in db.execute("SELECT data FROM facts")]
    assert kept and all(data.startswith(packing.FORMAT) for data in kept)


def test_hostile_native_files_are_skipped_with_a_reason(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    write_tree(root, {"pkg/__init__.py": "", "csrc/fine.cpp": 'void f() { AT_ERROR("fine"); }\n'})
    (root / "csrc/huge.cpp").write_bytes(b"// x\n" * (1024 * 1024))
    (root / "csrc/binary.c").write_bytes(b"int x;\0\x01\x02 PyErr_NoMemory();")
    (root / "csrc/latin1.c").write_bytes(
        "/* caf\xe9 */ void g() { PyErr_NoMemory(); }".encode("latin-1")
    )
    nested = b"#define DEEP(x) TORCH_CHECK(" + b"(" * 5000 + b"x" + b")" * 5000 + b', "deep")\n'
    (root / "csrc/nested.h").write_bytes(nested)
    snapshot = _snapshot(root)
    cache = NoCache()
    extraction = extract(snapshot, scan(snapshot, cache), cache, workers=1)
    reasons = {s.path: s.reason for s in extraction.skipped}
    assert reasons["csrc/huge.cpp"].startswith("file is 5,242,880 bytes, over the")
    assert reasons["csrc/binary.c"] == "binary data (NUL bytes), not source; not read"
    assert reasons["csrc/latin1.c"].startswith("cannot decode: not UTF-8")
    assert reasons["csrc/nested.h"].startswith("too deeply nested to analyse")
    assert [s.message.text for s in extraction.sites if s.message] == ["fine"]
    assert extraction.native == (("cpp", 1, 1),)


BOUND = {
    "pkg/__init__.py": "",
    "pkg/_custom_ops.py": (
        "import torch\n\n\ndef rms_norm(out, x, eps):\n    torch.ops._C.rms_norm(out, x, eps)\n"
    ),
    "csrc/layernorm.cu": (
        "void launch(torch::Tensor& x, double eps) {\n"
        '  TORCH_CHECK(x.is_contiguous(), "x must be contiguous");\n'
        "}\n"
        "void rms_norm(torch::Tensor& out, torch::Tensor& x, double eps) {\n"
        "  launch(x, eps);\n"
        "}\n"
    ),
    "csrc/torch_bindings.cpp": (
        "TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {\n"
        '  ops.def("rms_norm(Tensor! out, Tensor x, float eps) -> ()");\n'
        '  ops.impl("rms_norm", torch::kCUDA, &rms_norm);\n'
        "}\n"
    ),
}


def test_a_bound_kernel_is_reached_from_the_python_function_that_calls_it(
    tmp_path: Path,
) -> None:
    root = write_tree(tmp_path / "tree", BOUND)
    store = open_store(tmp_path / "errdex.sqlite")
    try:
        index_snapshot(_snapshot(root), store, cache_path=tmp_path / "facts.sqlite")
        best = Matcher(store).match("RuntimeError: x must be contiguous").matches[0]
        record = store.get(best.id)
    finally:
        store.close()
    assert record is not None and record.site.explanation is not None
    assert record.site.location.function == "launch"
    # the native caller, the op Python calls, then the package's function calling it
    assert record.site.explanation.call_paths == (
        ("rms_norm", "torch.ops.TORCH_EXTENSION_NAME.rms_norm", "pkg._custom_ops.rms_norm"),
    )
