# What the snapshot's own tests expect of its errors, read for the explain stage:
# `pytest.raises(Exc, match=...)`, `assertRaisesRegex(Exc, ...)` and raises blocks that
# check the message text afterwards. Test files are read as text, never imported: only
# the argument list of each raises call is parsed, which keeps a scan of a large test
# tree well under a second.
from __future__ import annotations

import ast
import builtins
import functools
import itertools
import os
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from keyword import kwlist
from pathlib import Path

from errdex.extract.cache import EXTRACTOR_VERSION, FactsCache, digest, packer
from errdex.extract.packing import Unreadable
from errdex.extract.parametrized import Parametrized, Values, class_names, strings
from errdex.model import Expectation, TestFile, TestRef
from errdex.sources.reading import read_regular

MAX_FILE = 2_000_000  # bytes; larger test files are data, not tests
_SKIP_DIRS = frozenset(
    {"node_modules", "__pycache__", "site-packages", "build", "dist", "csrc", "venv", ".venv"}
)
_MARKERS = (b"raises", b"assertRaises", b".output", b".stdout", b".stderr", b"readouterr")
_TEST_DIRS = frozenset({"tests", "test", "testing"})
# Starts with a literal so that the regex engine can skip ahead; what precedes it
# ("r" of raises, "assertR" of assertRaises) is checked by hand.
_CALL = re.compile(r"aises(Regexp?|Regex|Message)?\s*\(")
_DEF = re.compile(r"^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+(\w+)", re.M)
# a string on one line, escapes and all (group 2), with its prefix (group 1)
_STRING = re.compile(
    r"""([rRbBuUfF]{0,2})("(?:[^"\\\n]|\\.){12,200}"|'(?:[^'\\\n]|\\.){12,200}')"""
)
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_AS = re.compile(r" as ([A-Za-z_]\w*)")  # a literal first: the engine skips ahead
_LAST_NAME = re.compile(r"([A-Za-z_]\w*)$")
_CALLED = re.compile(r"([A-Za-z_]\w*)\s*\(")
_BARE_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\s*\(")  # `f(`, not `x.f(`
# an attribute read or set, not called: a property runs (`response.content`)
_READ = re.compile(r"\.([A-Za-z_]\w*)\b(?!\s*\()")
# statements that call a method of an object without naming it: `with client:` enters
# it; the object, when the statement names one (group 1), gives the method its class
_PROTOCOLS = (
    (re.compile(r"^[ \t]*async[ \t]+with[ \t]+(?:[\w.]*\.)?(\w+)?", re.M), "__aenter__"),
    (re.compile(r"^[ \t]*with[ \t]+(?:[\w.]*\.)?(\w+)?", re.M), "__enter__"),
    (re.compile(r"\basync[ \t]+for\b.*?\bin[ \t]+(?:[\w.]*\.)?(\w+)?"), "__aiter__"),
    (
        re.compile(
            r"(?<!async )\bfor\b.*?\bin[ \t]+(?:[\w.]*\.)?(\w+)?"
            r"|\b(?:list|tuple|set|sorted|iter)\((?:[\w.]*\.)?(\w+)?"
        ),
        "__iter__",
    ),
)
# `client = httpx.Client(...)` and `with httpx.Client(...) as client`: what `client` is
_ASSIGNED = re.compile(r"\b([a-z_]\w*)[ \t]*=[ \t]*(?:[A-Za-z_][\w.]*\.)?([A-Z]\w*)[ \t]*\(")
_WITH_AS = re.compile(
    r"\bwith[ \t]+(?:[A-Za-z_][\w.]*\.)?([A-Z]\w*)\(.*\)[ \t]+as[ \t]+([a-z_]\w*)"
)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([A-Za-z_][\w.]*)(?:[ \t]+as[ \t]+(\w+))?[ \t]*$", re.M)
_METHOD = re.compile(r"\b([a-z_]\w*)\.([A-Za-z_]\w*)[ \t]*\(")
_ATTRIBUTE = re.compile(r"\b([a-z_]\w*)\.([A-Za-z_]\w*)\b(?![ \t]*[(\w])")
# `x[...]` on one line: after `del ` (group 1), the object (2), set with `=` (group 3)
_SUBSCRIPT = re.compile(r"(\bdel[ \t]+)?\b([a-z_]\w*)\[[^\]\n]*\]([ \t]*=(?!=))?")
_QUOTED = re.compile(r"""("|')(?:\\.|(?!\1).)*\1""")  # a string on one line: no reads in it
# captured output, and the exception a CliRunner result holds (`result.exception`)
_OUTPUT = re.compile(r"\.(?:output|stdout|stderr|exception)\b|readouterr\(\)")
_CLI_PREFIX = re.compile(r"^(?:[Ee]rror|Usage error): ")
_MIN_OUTPUT = 12  # characters of an output line worth fitting to a message
_MAX_SPLIT = 6  # lines above an output check that its statement may begin on
_LITERAL = re.compile(r"""(?<![\w"'])[rRuU]?("|')((?:\\.|(?!\1)[^\\\n])*)\1""")
_DEDENTS: dict[int, re.Pattern[str]] = {}


def _dedent(level: int) -> re.Pattern[str]:
    """A line that starts a statement (not a comment, not a closing bracket) indented
    `level` or less: where the body of a def at `level` ends."""
    if level not in _DEDENTS:
        _DEDENTS[level] = re.compile(rf"\n[ \t]{{0,{level}}}[^\s#)\]}}]")
    return _DEDENTS[level]


_NEXT_DEF = ("def ", "async def ", "class ", "@")
_MAX_BLOCK = 30  # lines of a `with pytest.raises(...)` block read for what it calls
_NOT_CALLS = frozenset(dir(builtins)) | frozenset(kwlist) | {"self", "cls", "pytest", "raises"}


def scan_tests(root: Path, cache: FactsCache | None = None) -> tuple[TestFile, ...]:
    """The test files under `root` that expect an exception somewhere, with what they
    expect and the identifiers they mention. A file scanned before (the same path and
    content, by the same extractor) is read back from `cache`, and what is scanned
    afresh is kept there: most test files of a release are those of the one before."""
    found: list[TestFile] = []
    files = iter(_read_tests(root))
    while batch := list(itertools.islice(files, _BATCH)):  # not every file in memory at once
        keys = [_key(rel, data) for rel, data in batch]
        kept = {} if cache is None else cache.load(keys)
        fresh: list[tuple[str, bytes]] = []
        for (rel, data), key in zip(batch, keys, strict=True):
            test = _read_back(kept.get(key))
            if test is _MISSING:
                test = _scan_file(rel, data.decode("utf-8", errors="replace"))
                fresh.append((key, packer().dumps(test)))
            if isinstance(test, TestFile):
                found.append(test)
        if cache is not None:
            cache.save(fresh)
    return tuple(found)


_BATCH = 256  # test files read, looked up in the cache and kept at a time


def _key(rel: str, data: bytes) -> str:
    """A test file's key in the cache: a digest of its path's bytes (a path need not be
    UTF-8, and holds no NUL) and its content, under this extractor."""
    return f"tests:{EXTRACTOR_VERSION}:{digest(os.fsencode(rel) + bytes(1) + data)}"


_MISSING = object()  # a file the cache holds no (readable) scan of


def _read_back(packed: bytes | None) -> object:
    """A file's scan as the cache keeps it (a TestFile, or None: nothing expected), or
    _MISSING when it holds none or a damaged one."""
    if packed is None:
        return _MISSING
    try:
        test = packer().loads(packed)  # data only (errdex.extract.packing): nothing runs
    except Unreadable:  # an older errdex's entry, a damaged or a planted one: a miss
        return _MISSING
    return test if test is None or isinstance(test, TestFile) else _MISSING


def _scan_file(rel: str, text: str) -> TestFile | None:
    """What test file `rel` expects, or None when it expects no exception."""
    expected = (*expectations(rel, text), *output_expectations(rel, text))
    if not expected:
        return None
    return TestFile(path=rel, names=frozenset(_IDENTIFIER.findall(text)), expectations=expected)


def test_files(root: Path) -> Iterator[str]:
    """Paths relative to `root` of Python files in test folders (tests/, */test/, ...)
    or named like tests (test_*.py, *_test.py)."""
    top = str(root)
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS]
        rel = os.path.relpath(dirpath, top)
        in_tests = any(part in _TEST_DIRS for part in rel.split(os.sep))
        for name in filenames:
            if not name.endswith(".py"):
                continue
            if in_tests or name.startswith("test_") or name.endswith("_test.py"):
                yield name if rel == "." else f"{rel}/{name}"


def regex_pieces(pattern: str) -> tuple[tuple[str, ...], ...]:
    """The literal runs a regex requires, per top-level alternative."""
    alternatives: list[tuple[str, ...]] = []
    pieces: list[str] = []
    run: list[str] = []
    i = 0

    def cut() -> None:
        if run:
            pieces.append("".join(run))
            run.clear()

    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if nxt.isalnum():
                cut()
            else:
                run.append(nxt)
            i += 2
            continue
        if char in "*?{":
            if run:
                run.pop()
            cut()
            if char == "{":
                close = pattern.find("}", i)
                i = close + 1 if close > 0 else i + 1
                continue
        elif char == "+":
            cut()
        elif char == "[":
            cut()
            close = pattern.find("]", i + 2)
            i = close + 1 if close > 0 else len(pattern)
            continue
        elif char == "|":
            cut()
            alternatives.append(tuple(pieces))
            pieces = []
        elif char in ".^$()":
            cut()
        else:
            run.append(char)
        i += 1
    cut()
    alternatives.append(tuple(pieces))
    return tuple(alternatives)


def _args(text: str, start: int) -> str | None:
    """The text between the parenthesis at `start` and its partner, strings respected."""
    depth = 0
    quote = ""
    i = start
    end = min(len(text), start + 4000)
    while i < end:
        char = text[i]
        if quote:
            if char == "\\":
                i += 2
                continue
            if text.startswith(quote, i):
                i += len(quote)
                quote = ""
                continue
        elif char in "\"'":
            quote = char * 3 if text.startswith(char * 3, i) else char
            i += len(quote)
            continue
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1 : i]
        i += 1
    return None


def _literal(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Call) and node.args and ast.unparse(node.func) == "re.escape":
        inner = _literal(node.args[0])
        return None if inner is None else re.escape(inner)
    if isinstance(node, ast.JoinedStr):
        out = []
        for value in node.values:
            text = _literal(value)
            out.append(".*" if text is None else text)
        return "".join(out)
    return None


def _names(node: ast.expr) -> frozenset[str]:
    if isinstance(node, ast.Tuple):
        return frozenset(n for e in node.elts for n in _names(e))
    if isinstance(node, ast.Name | ast.Attribute):
        return frozenset({ast.unparse(node).rsplit(".", 1)[-1]})
    return frozenset()


def expectations(rel: str, text: str) -> Iterator[Expectation]:
    """Every raises expectation in one test file."""
    defs: _Defs | None = None
    line, counted = 1, 0
    aliases: dict[str, str] | None = None  # `import X as Y`: Y names X; read when needed
    modules: dict[str, str] | None = None  # `import requests`: what calls go through
    for call in _CALL.finditer(text):
        at = call.start() - 1
        if at < 0:
            continue
        if text[at] == "R" and text.startswith("assert", at - 6):
            kind = "assertRaises" + (call.group(1) or "")
        elif text[at] == "r" and (at == 0 or not (text[at - 1].isalnum() or text[at - 1] == "_")):
            kind = "raises"
        else:
            continue
        body = _args(text, call.end() - 1)
        if body is None:
            continue
        try:
            node = ast.parse(f"f({body}\n)", mode="eval").body
        except (SyntaxError, ValueError, RecursionError):
            continue
        if not isinstance(node, ast.Call) or not node.args:
            continue
        exceptions = _names(node.args[0])
        if not exceptions:
            continue
        defs = defs or _Defs(text)
        found = defs.test_def(call.start())
        if found is None or not found[0].rsplit(".", 1)[-1].startswith("test"):
            continue  # a helper of the tests, not a test that can be run by name
        name, start = found
        params = defs.params(start)
        checked: ast.expr | None = None
        for keyword in node.keywords:
            if keyword.arg in ("match", "expected_regex"):
                checked = keyword.value
        if checked is None and kind.startswith("assertRaises") and kind != "assertRaises":
            checked = node.args[1] if len(node.args) > 1 else None
        patterns = _patterns(checked, params)
        line += text.count("\n", counted, call.start())
        counted = call.start()
        if patterns:
            alternatives = tuple(alt for pattern in patterns for alt in regex_pieces(pattern))
        else:  # () when nothing is checked: the class alone, fitted by what is called
            alternatives = _checked_text(text, call.end(), params)
        if len(node.args) > 1:  # pytest.raises(Exc, func, ...): the call is an argument
            calls = frozenset(n for n in _names(node.args[1]) if n not in _NOT_CALLS)
        else:
            if modules is None:
                modules = _imported_modules(text)
            calls = _block_calls(text, call.start(), start, modules, defs)
        if aliases is None:
            aliases = _aliases(text)
        for expected in _expected_classes(node.args[0], exceptions, params):
            yield Expectation(
                exceptions=frozenset(aliases.get(e, e) for e in expected),
                alternatives=alternatives,
                test=TestRef(file=rel, line=line, name=name),
                calls=calls,
            )


def _patterns(node: ast.expr | None, params: Values) -> list[str]:
    """The regex a raises call checks the message with (`match=`): a literal, or each
    case's string for a parameter of the test (`match=message`)."""
    if isinstance(node, ast.Name) and node.id in params:
        return strings(params[node.id])
    pattern = _literal(node)
    return [] if pattern is None else [pattern]


def _expected_classes(
    node: ast.expr, written: frozenset[str], params: Values
) -> list[frozenset[str]]:
    """The classes a raises call expects: as written, or, for a parameter of the test
    (`pytest.raises(exception)`), each class its cases give it, one case at a time."""
    if isinstance(node, ast.Name) and node.id in params:
        return [frozenset({c}) for c in class_names(params[node.id])]
    return [written]


def output_expectations(rel: str, text: str) -> Iterator[Expectation]:
    """Error messages a test expects a command to print: a string checked against
    captured output (`"..." in result.output`, `== capsys.readouterr().err`), one line of
    it at a time, the "Error: " a CLI puts before the message taken off. Any class; the
    explain stage asks for a close, unique fit."""
    defs: _Defs | None = None
    line, counted = 1, 0
    for check in _OUTPUT.finditer(text):
        if check.group() == ".exception" and not _on_result(text, check.start()):
            continue  # only a CliRunner result's: other `.exception`s follow a raises block
        start = text.rfind("\n", 0, check.start()) + 1
        end = text.find("\n", check.end())
        line_text = text[start : end if end >= 0 else len(text)]
        if " in " not in line_text and "==" not in line_text:
            continue
        after = _statement_after(text, end, line_text)
        texts = _joined_strings(_statement_before(text, start) + line_text + after)
        defs = defs or _Defs(text)
        found = defs.test_def(start + len(line_text) - len(line_text.lstrip()))
        if found is None or not found[0].rsplit(".", 1)[-1].startswith("test"):
            continue
        name, def_start = found
        params = defs.params(def_start)
        for word in set(_IDENTIFIER.findall(line_text)) & params.keys():
            texts.extend(strings(params[word]))  # `assert expect in result.output`
        pieces = []
        for checked in texts:
            for part in checked.split("\n"):
                part = _CLI_PREFIX.sub("", part.strip())
                if len(part) >= _MIN_OUTPUT:
                    pieces.append((part,))
        if not pieces:
            continue
        line += text.count("\n", counted, start)
        counted = start
        yield Expectation(
            exceptions=frozenset(),
            alternatives=tuple(pieces),
            test=TestRef(file=rel, line=line, name=name),
        )


def _statement_before(text: str, start: int) -> str:
    """The lines of the statement that the line at `start` ends, when black split it:
    `assert (` and the string pieces under it, up to _MAX_SPLIT lines up."""
    lines: list[str] = []
    end = start
    for _ in range(_MAX_SPLIT):
        begin = text.rfind("\n", 0, max(end - 1, 0)) + 1
        above = text[begin : max(end - 1, begin)]
        stripped = above.strip()
        if not (stripped.startswith(("'", '"')) or stripped.endswith("(")) or end == 0:
            break
        lines.insert(0, above + "\n")
        if stripped.endswith("(") and not stripped.startswith(("'", '"')):
            break  # the statement's head: `assert (`
        end = begin
    else:
        return ""
    return "".join(lines) if lines and lines[0].strip().endswith("(") else ""


def _on_result(text: str, at: int) -> bool:
    """The attribute at `at` is read on a variable named `result`."""
    before = text[max(0, at - 7) : at]
    return before.endswith("result") and (len(before) < 7 or not _IDENTIFIER.match(before[0]))


def _statement_after(text: str, end: int, line_text: str) -> str:
    """The lines that finish the statement an output check opens a bracket on
    (`result.output.splitlines() == [` and the expected lines under it), up to
    _MAX_SPLIT * 2 lines down; empty when the line closes what it opens."""
    code = _QUOTED.sub('""', line_text)
    depth = sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}")
    lines: list[str] = []
    while depth > 0 and end >= 0 and len(lines) < _MAX_SPLIT * 2:
        nxt = text.find("\n", end + 1)
        below = text[end + 1 : nxt if nxt >= 0 else len(text)]
        code = _QUOTED.sub('""', below)
        depth += sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}")
        lines.append(below)
        end = nxt
    return "\n" + "\n".join(lines) if lines else ""


def _joined_strings(code: str) -> list[str]:
    """The string literals of `code` of _MIN_OUTPUT characters or more, adjacent ones
    (`"Invalid value for 'x':" " 'meh' is not one"`) joined as Python joins them."""
    out: list[str] = []
    run: list[str] = []
    last = -1
    for literal in _LITERAL.finditer(code):
        if run and code[last : literal.start()].strip():
            out.append("".join(run))
            run = []
        run.append(literal.group(2).replace("\\n", "\n"))
        last = literal.end()
    if run:
        out.append("".join(run))
    return [t for t in out if len(t) >= _MIN_OUTPUT]


def _aliases(text: str) -> dict[str, str]:
    """`import X as Y` and `from m import X as Y`: the name each alias stands for."""
    found: dict[str, str] = {}
    for m in _AS.finditer(text):
        before = _LAST_NAME.search(text, max(0, m.start() - 80), m.start())
        if before is not None:
            found[m.group(1)] = before.group(1)
    return found


def _imported_modules(text: str) -> dict[str, str]:
    """The modules a test file imports whole (`import requests`, `import a.b as c`):
    the name each is called through -> the module's last segment."""
    return {
        m.group(2) or m.group(1).rsplit(".", 1)[-1]: m.group(1).rsplit(".", 1)[-1]
        for m in _IMPORT.finditer(text)
        if m.group(2) or "." not in m.group(1)
    }


def _block_calls(
    text: str, at: int, test_start: int, modules: dict[str, str], defs: _Defs
) -> frozenset[str]:
    """The names called in the `with` block that a raises call at `at` opens: the lines
    after it indented deeper than its own (empty when it opens no block). A method called
    on an object the test made (`client = Client(...)`, `with Client() as client`, from
    `test_start` on) is named with its class: `Client.get`; a function called through a
    module the file imports, with the module: `requests.get`; a helper the test file
    defines itself, by what its body calls (see _Defs.helper_calls)."""
    start = text.rfind("\n", 0, at) + 1
    head = text[start:at]
    if not head.lstrip().startswith("with "):
        return frozenset()
    indent = len(head) - len(head.lstrip())
    end = text.find("\n", at)
    body: list[str] = []
    while end >= 0 and len(body) < _MAX_BLOCK:
        nxt = text.find("\n", end + 1)
        line = text[end + 1 : nxt if nxt >= 0 else len(text)]
        end = nxt
        if not line.strip():
            continue
        if len(line) - len(line.lstrip()) <= indent:
            break
        body.append(line)
    code = _QUOTED.sub('""', "\n".join(body))
    made = {**modules, **_made(_QUOTED.sub('""', text[test_start:start]) + "\n" + code)}
    typed: set[str] = set()
    untyped = _METHOD.sub(lambda m: _typed(m, made, typed), code)
    # `response.request`, `del headers["x"]`: a property or a dunder of a made object
    unread = _ATTRIBUTE.sub(lambda m: _typed(m, made, typed), untyped)
    for subscript in _SUBSCRIPT.finditer(unread):
        owner = made.get(subscript.group(2))
        if owner is not None:
            typed.add(f"{owner}.{_subscript_method(subscript)}")
    called = {*_CALLED.findall(untyped), *_READ.findall(unread), *typed}
    for pattern, method in _PROTOCOLS:
        for statement in pattern.finditer(code):
            called.add(_protocol_call(statement, method, made))
    before = text[test_start:start]
    hidden: set[str] = set()
    through: set[str] = set()
    for helper in set(_BARE_CALL.findall(code)) & defs.helpers.keys():
        if re.search(rf"\bdef\s+{helper}\b", before):
            continue  # the test's own function of that name hides the file's
        if not re.search(rf"\.{helper}\s*\(", code):  # never called as anyone's method
            hidden.add(helper)
        through |= defs.helper_calls(helper)
    return frozenset(n for n in (called - hidden) | through if n not in _NOT_CALLS)


def _made(code: str) -> dict[str, str]:
    """The variables `code` binds to a new object of a named class: variable -> class."""
    made = {m.group(1): m.group(2) for m in _ASSIGNED.finditer(code)}
    made.update((m.group(2), m.group(1)) for m in _WITH_AS.finditer(code))
    return made


def _protocol_call(statement: re.Match[str], method: str, made: dict[str, str]) -> str:
    """`Client.__enter__` for `with client:` (or `with Client(...)`), else the bare method:
    what the statement calls, with the class of the object when the test knows it."""
    obj = next((g for g in statement.groups() if g), "")
    owner = made.get(obj) or (obj if obj[:1].isupper() else None)
    return method if owner is None else f"{owner}.{method}"


def _typed(method: re.Match[str], made: dict[str, str], typed: set[str]) -> str:
    """`client.get(` read as a call of `Client.get` (into `typed`, and taken out of the
    code) when the test made `client` a Client; else left as it is."""
    owner = made.get(method.group(1))
    if owner is None:
        return method.group(0)
    typed.add(f"{owner}.{method.group(2)}")
    return "("


def _subscript_method(subscript: re.Match[str]) -> str:
    """The dunder `x[...]` calls: deleted (`del x[k]`), set (`x[k] = v`) or read."""
    if subscript.group(1):
        return "__delitem__"
    return "__setitem__" if subscript.group(3) else "__getitem__"


def _checked_text(text: str, after: int, params: Values) -> tuple[tuple[str, ...], ...]:
    """Message text a test checks right after a raises block (`... in str(e.value)`): a
    string, or each case's string for a parameter of the test (`message in str(e)`)."""
    end = after
    for _ in range(12):
        nxt = text.find("\n", end + 1)
        if nxt < 0:
            break
        end = nxt
    found: list[tuple[str, ...]] = []
    checks = 0  # lines since the last one that reads the exception (a check split by black)
    for line in text[after:end].split("\n"):
        if line.lstrip().startswith(_NEXT_DEF):
            break  # the next test begins: what it checks is its own
        if "str(" in line or ".value" in line or ".exception" in line or "match" in line:
            checks = 3
        if checks:
            found.extend((t,) for m in _STRING.finditer(line) if (t := _string_value(m)))
            for word in set(_IDENTIFIER.findall(line)) & params.keys():
                found.extend((value,) for value in strings(params[word]))
            checks -= 1
    return tuple(found)


def _string_value(string: re.Match[str]) -> str | None:
    """The text of a string literal _STRING found: as written, or with its escapes read
    (`'\\\\n'` is a backslash and an n, as `repr` shows a newline); None for an f-string
    or bytes with escapes, whose text is not the message's."""
    prefix, quoted = string.group(1).lower(), string.group(2)
    if "\\" not in quoted or "r" in prefix:
        return quoted[1:-1]
    if "f" in prefix or "b" in prefix:
        return None
    try:
        value = ast.literal_eval(quoted)
    except (SyntaxError, ValueError):
        return None
    return value if isinstance(value, str) else None


class _Defs:
    """The `def`s and `class`es of one test file, each with where its body ends (the next
    line indented no deeper) and the one it is nested in, read in one pass."""

    def __init__(self, text: str):
        self.text = text
        self._params: Parametrized | None = None
        self.found = [
            (m.start(), len(m.group(1).expandtabs()), m.group(2), m.group(3))
            for m in _DEF.finditer(text)
        ]
        self.starts = [start for start, _, _, _ in self.found]
        self.ends = [len(text)] * len(self.found)
        self.parents = [-1] * len(self.found)
        running: list[int] = []  # the defs whose body goes on, innermost last
        for k, (start, level, _, _) in enumerate(self.found):
            body = text.find("\n", start)
            end = None if body < 0 else _dedent(level).search(text, body)
            self.ends[k] = len(text) if end is None else end.start() + 1
            while running and self.ends[running[-1]] <= start:
                running.pop()
            self.parents[k] = running[-1] if running else -1
            running.append(k)

    @functools.cached_property
    def helpers(self) -> dict[str, int]:
        """The functions the file defines at its top level that are not tests, each
        with its index in `found` (the last one of a name, as Python binds it)."""
        return {
            name: k
            for k, (_, level, kind, name) in enumerate(self.found)
            if level == 0 and kind == "def" and not name.startswith("test")
        }

    def helper_calls(self, name: str) -> set[str]:
        """The names the body of the file's own helper `name` calls: a test that calls
        the file's `replace(wrapper)` reaches what `replace` calls, and none of the
        codebase's functions named `replace`."""
        k = self.helpers[name]
        start = self.text.find("\n", self.found[k][0])
        body = "" if start < 0 else self.text[start : self.ends[k]]
        return set(_CALLED.findall(_QUOTED.sub('""', body))) - _NOT_CALLS

    def params(self, def_start: int) -> Values:
        """The parametrized values of the def that starts at `def_start`."""
        if self._params is None:
            self._params = Parametrized(self.text, _args)
        return self._params.values(def_start)

    def test_at(self, offset: int) -> str | None:
        """The test function (`Class.test_x` or `test_x`) whose body holds `offset`: the
        innermost enclosing def named test*, so that a helper nested in a test counts for
        it; else the innermost enclosing function (not a test: dropped by the caller)."""
        found = self.test_def(offset)
        return None if found is None else found[0]

    def test_def(self, offset: int) -> tuple[str, int] | None:
        """What test_at names, with where that def starts."""
        text = self.text
        line_start = text.rfind("\n", 0, offset) + 1
        indent = len(text[line_start:offset]) - len(text[line_start:offset].lstrip())
        k = bisect_right(self.starts, offset) - 1
        # the last def before `offset` or one it is nested in, whose body still runs
        while k >= 0 and (self.ends[k] <= line_start or self.found[k][1] >= indent):
            k = self.parents[k]
        chain: list[tuple[str, str, int]] = []  # (kind, name, start), innermost first
        while k >= 0:
            chain.append((self.found[k][2], self.found[k][3], self.found[k][0]))
            k = self.parents[k]
        functions = [j for j, (kind, _, _) in enumerate(chain) if kind == "def"]
        if not functions:
            return None
        at = next((j for j in functions if chain[j][1].startswith("test")), functions[0])
        if at + 1 < len(chain) and chain[at + 1][0] == "class":
            return f"{chain[at + 1][1]}.{chain[at][1]}", chain[at][2]
        return chain[at][1], chain[at][2]


def _read_tests(root: Path) -> Iterable[tuple[str, bytes]]:
    """The test files worth scanning: each one's path and bytes."""
    for rel in test_files(root):
        try:  # a regular file only: a FIFO named like a test would hang the index
            data = read_regular(os.path.join(root, rel), MAX_FILE + 1)
        except OSError:
            continue
        if len(data) > MAX_FILE or not any(m in data for m in _MARKERS):
            continue
        yield rel, data
