# What the snapshot's own tests expect of its errors, read for the explain stage:
# `pytest.raises(Exc, match=...)`, `assertRaisesRegex(Exc, ...)` and raises blocks that
# check the message text afterwards. Test files are read as text, never imported: only
# the argument list of each raises call is parsed, which keeps a scan of a large test
# tree well under a second.
from __future__ import annotations

import ast
import builtins
import os
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from pathlib import Path

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
_STRING = re.compile(r"""(?:[rRbBuUfF]{0,2})("[^"\\\n]{12,200}"|'[^'\\\n]{12,200}')""")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_ALIAS = re.compile(r"\b([A-Za-z_]\w*) as ([A-Za-z_]\w*)\b")
_CALLED = re.compile(r"([A-Za-z_]\w*)\s*\(")
_OUTPUT = re.compile(r"\.(?:output|stdout|stderr)\b|readouterr\(\)")
_CLI_PREFIX = re.compile(r"^(?:[Ee]rror|Usage error): ")
_MIN_OUTPUT = 12  # characters of an output line worth fitting to a message
_DEDENT: dict[int, re.Pattern[str]] = {}  # by the indentation of a def
_NEXT_DEF = ("def ", "async def ", "class ", "@")
_MAX_BLOCK = 30  # lines of a `with pytest.raises(...)` block read for what it calls
_NOT_CALLS = frozenset(dir(builtins)) | {"self", "cls", "pytest", "raises"}


def scan_tests(root: Path) -> tuple[TestFile, ...]:
    """The test files under `root` that expect an exception somewhere, with what they
    expect and the identifiers they mention."""
    found: list[TestFile] = []
    for rel, text in _read_tests(root):
        expected = (*expectations(rel, text), *output_expectations(rel, text))
        if expected:
            names = frozenset(_IDENTIFIER.findall(text))
            found.append(TestFile(path=rel, names=names, expectations=expected))
    return tuple(found)


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
    defs: list[tuple[int, int, str, str]] = []
    starts: list[int] = []
    line, counted, scanned = 1, 0, 0
    aliases: dict[str, str] | None = None  # `import X as Y`: Y names X; read when needed
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
        if aliases is None:
            aliases = dict((alias, name) for name, alias in _ALIAS.findall(text))
        exceptions = frozenset(aliases.get(e, e) for e in exceptions)
        pattern = None
        for keyword in node.keywords:
            if keyword.arg in ("match", "expected_regex"):
                pattern = _literal(keyword.value)
        if pattern is None and kind.startswith("assertRaises") and kind != "assertRaises":
            pattern = _literal(node.args[1]) if len(node.args) > 1 else None
        line += text.count("\n", counted, call.start())
        counted = call.start()
        if pattern is not None:
            alternatives = regex_pieces(pattern)
        else:  # () when nothing is checked: the class alone, fitted by what is called
            alternatives = _checked_text(text, call.end())
        for m in _DEF.finditer(text, scanned, call.start()):
            defs.append((m.start(), len(m.group(1).expandtabs()), m.group(2), m.group(3)))
            starts.append(m.start())
        scanned = call.start()
        name = _enclosing(defs, starts, text, call.start())
        if name is None or not name.rsplit(".", 1)[-1].startswith("test"):
            continue  # a helper of the tests, not a test that can be run by name
        if len(node.args) > 1:  # pytest.raises(Exc, func, ...): the call is an argument
            calls = frozenset(n for n in _names(node.args[1]) if n not in _NOT_CALLS)
        else:
            calls = _block_calls(text, call.start())
        yield Expectation(
            exceptions=exceptions,
            alternatives=alternatives,
            test=TestRef(file=rel, line=line, name=name),
            calls=calls,
        )


def output_expectations(rel: str, text: str) -> Iterator[Expectation]:
    """Error messages a test expects a command to print: a string checked against
    captured output (`"..." in result.output`, `== capsys.readouterr().err`), one line of
    it at a time, the "Error: " a CLI puts before the message taken off. Any class; the
    explain stage asks for a close, unique fit."""
    defs: list[tuple[int, int, str, str]] = []
    starts: list[int] = []
    for m in _DEF.finditer(text):
        defs.append((m.start(), len(m.group(1).expandtabs()), m.group(2), m.group(3)))
        starts.append(m.start())
    for check in _OUTPUT.finditer(text):
        start = text.rfind("\n", 0, check.start()) + 1
        end = text.find("\n", check.end())
        line_text = text[start : end if end >= 0 else len(text)]
        if " in " not in line_text and "==" not in line_text:
            continue
        pieces = []
        for literal in _STRING.finditer(line_text):
            for part in literal.group(1)[1:-1].split("\\n"):
                part = _CLI_PREFIX.sub("", part.strip())
                if len(part) >= _MIN_OUTPUT:
                    pieces.append((part,))
        if not pieces:
            continue
        name = _enclosing(defs, starts, text, start + len(line_text) - len(line_text.lstrip()))
        if name is None or not name.rsplit(".", 1)[-1].startswith("test"):
            continue
        yield Expectation(
            exceptions=frozenset(),
            alternatives=tuple(pieces),
            test=TestRef(file=rel, line=text.count("\n", 0, start) + 1, name=name),
        )


def _block_calls(text: str, at: int) -> frozenset[str]:
    """The names called in the `with` block that a raises call at `at` opens: the lines
    after it indented deeper than its own (empty when it opens no block)."""
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
    return frozenset(n for n in _CALLED.findall("\n".join(body)) if n not in _NOT_CALLS)


def _checked_text(text: str, after: int) -> tuple[tuple[str, ...], ...]:
    """Message text a test checks right after a raises block (`... in str(e.value)`)."""
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
            found.extend((m.group(1)[1:-1],) for m in _STRING.finditer(line))
            checks -= 1
    return tuple(found)


def _enclosing(
    defs: list[tuple[int, int, str, str]], starts: list[int], text: str, offset: int
) -> str | None:
    """The test function (`Class.test_x` or `test_x`) whose body holds `offset`: the
    innermost enclosing `def` named test*, so that a helper nested in a test counts for
    it; else the innermost enclosing function (not a test: dropped by the caller)."""
    line_start = text.rfind("\n", 0, offset) + 1
    limit = len(text[line_start:offset]) - len(text[line_start:offset].lstrip())
    chain: list[tuple[str, str]] = []  # (kind, name), innermost first
    for k in range(bisect_right(starts, offset) - 1, -1, -1):
        start, level, kind, name = defs[k]
        if level >= limit or _ended(text, start, line_start, level):
            continue  # a sibling, or a def whose body ended before `offset`
        chain.append((kind, name))
        limit = level
        if level == 0:
            break
    functions = [j for j, (kind, _) in enumerate(chain) if kind == "def"]
    tests = [j for j in functions if chain[j][1].startswith("test")]
    if not functions:
        return None
    at = tests[0] if tests else functions[0]
    if at + 1 < len(chain) and chain[at + 1][0] == "class":
        return f"{chain[at + 1][1]}.{chain[at][1]}"
    return chain[at][1]


def _ended(text: str, start: int, until: int, level: int) -> bool:
    """A line between the def at `start` and `until` is indented no deeper than the def:
    the def's body ended there."""
    pattern = _DEDENT.get(level)
    if pattern is None:
        pattern = _DEDENT[level] = re.compile(rf"\n[ \t]{{0,{level}}}[^\s#)\]}}]")
    first = text.find("\n", start)
    return first >= 0 and pattern.search(text, first, until) is not None


def _read_tests(root: Path) -> Iterable[tuple[str, str]]:
    for rel in test_files(root):
        try:  # a regular file only: a FIFO named like a test would hang the index
            data = read_regular(os.path.join(root, rel), MAX_FILE + 1)
        except OSError:
            continue
        if len(data) > MAX_FILE or not any(m in data for m in _MARKERS):
            continue
        yield rel, data.decode("utf-8", errors="replace")
