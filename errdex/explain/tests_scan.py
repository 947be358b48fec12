# The codebase's own tests that trigger an error: `pytest.raises(Exc, match=...)` and
# `assertRaisesRegex(Exc, ...)` whose pattern fits a message template, and
# `pytest.raises` / `assertRaises` blocks that check the message text. Test files are
# read as text: only the argument list of each raises call is parsed, which keeps a
# scan of a large test tree well under a second.
from __future__ import annotations

import ast
import os
import re
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from errdex.model import ErrorSite, Hole, TestRef

MAX_TESTS = 3  # per site
MAX_FILE = 2_000_000  # bytes; larger test files are data, not tests
_AMBIGUOUS = 3  # a pattern fitting more sites than this needs the test to name one
_TOO_VAGUE = 25  # a pattern fitting more sites than this says nothing
_SKIP_DIRS = frozenset(
    {"node_modules", "__pycache__", "site-packages", "build", "dist", "csrc", "venv", ".venv"}
)
_TEST_DIRS = frozenset({"tests", "test", "testing"})
# Starts with a literal so that the regex engine can skip ahead; what precedes it
# ("r" of raises, "assertR" of assertRaises) is checked by hand.
_CALL = re.compile(r"aises(Regexp?|Regex|Message)?\s*\(")
_DEF = re.compile(r"^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+(\w+)", re.M)
_STRING = re.compile(r"""(?:[rRbBuUfF]{0,2})("[^"\\\n]{12,200}"|'[^'\\\n]{12,200}')""")
_WORD = re.compile(r"[a-z_]{4,}")
_HOLE = "\x00"
_MIN_LITERAL = 6  # letters a pattern must pin down to say anything


@dataclass(frozen=True, slots=True)
class Expectation:
    """One place in a test that expects an exception, with what it says of the message."""

    exceptions: frozenset[str]  # last segments of the names, e.g. {"ValueError"}
    alternatives: tuple[tuple[str, ...], ...]  # literal pieces per regex alternative
    test: TestRef


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


def _fits(piece: str, skeleton: str) -> bool:
    """True when `piece` is part of some message the template (holes as \\x00) yields."""
    if piece in skeleton:
        return True
    if _HOLE not in skeleton:
        return False
    n = len(skeleton)
    states: set[int] = set()
    for start in (piece[0], _HOLE):
        j = skeleton.find(start)
        while j >= 0:
            states.add(j)
            j = skeleton.find(start, j + 1)
    for char in piece:
        nxt: set[int] = set()
        for j in states:
            while j < n:
                at = skeleton[j]
                if at == _HOLE:
                    nxt.add(j)  # the hole takes the character
                    j += 1  # or the hole is empty here
                    continue
                if at == char:
                    nxt.add(j + 1)
                break
        if not nxt:
            return False
        states = nxt
    return True


def _mostly_literal(pieces: tuple[str, ...], skeleton: str) -> bool:
    """Most words of the pattern are in the template's own text, not in its holes."""
    words = [w for p in pieces for w in p.split() if len(w) > 2]
    return sum(w in skeleton for w in words) * 2 >= len(words)


def _skeleton(site: ErrorSite) -> str:
    if site.message is None:
        return ""
    return "".join(_HOLE if isinstance(p, Hole) else p.text for p in site.message.parts)


class TestIndex:
    """Finds, for each site, the tests whose expectations fit it."""

    def __init__(self, sites: Sequence[ErrorSite]):
        self.sites = sites
        self.skeletons = [_skeleton(s) for s in sites]
        self.words: dict[str, list[int]] = defaultdict(list)
        for i, skeleton in enumerate(self.skeletons):
            for word in set(_WORD.findall(skeleton.lower())):
                self.words[word].append(i)
        self.names = [_exception_names(s) for s in sites]

    def match(self, expectation: Expectation) -> list[int]:
        """Indexes of the sites an expectation fits."""
        found: set[int] = set()
        for pieces in expectation.alternatives:
            letters = sum(len(re.sub(r"[^A-Za-z]", "", p)) for p in pieces)
            if letters < _MIN_LITERAL:
                continue
            words = {w for p in pieces for w in _WORD.findall(p.lower()) if w in self.words}
            if not words:
                continue
            rarest = min(words, key=lambda w: len(self.words[w]))
            for i in self.words[rarest]:
                if not self._raises(i, expectation.exceptions):
                    continue
                skeleton = self.skeletons[i]
                if all(_fits(p, skeleton) for p in pieces if p) and _mostly_literal(
                    pieces, skeleton
                ):
                    found.add(i)
        return sorted(found)

    def _raises(self, i: int, expected: frozenset[str]) -> bool:
        return bool(expected & self.names[i]) or bool(expected & {"Exception", "BaseException"})


def _exception_names(site: ErrorSite) -> frozenset[str]:
    names = {site.exception.name.rsplit(".", 1)[-1]}
    names.update(b.rsplit(".", 1)[-1] for b in site.exception.bases)
    if site.kind == "assert":
        names.add("AssertionError")
    return frozenset(names)


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
        else:
            alternatives = _checked_text(text, call.end())
            if not alternatives:
                continue
        for m in _DEF.finditer(text, scanned, call.start()):
            defs.append((m.start(), len(m.group(1).expandtabs()), m.group(2), m.group(3)))
            starts.append(m.start())
        scanned = call.start()
        name = _enclosing(defs, starts, text, call.start())
        if name is None or not name.rsplit(".", 1)[-1].startswith("test"):
            continue  # a helper of the tests, not a test that can be run by name
        yield Expectation(
            exceptions=exceptions,
            alternatives=alternatives,
            test=TestRef(file=rel, line=line, name=name),
        )


def _checked_text(text: str, after: int) -> tuple[tuple[str, ...], ...]:
    """Message text a test checks right after a raises block (`... in str(e.value)`)."""
    end = after
    for _ in range(12):
        nxt = text.find("\n", end + 1)
        if nxt < 0:
            break
        end = nxt
    found: list[tuple[str, ...]] = []
    for line in text[after:end].split("\n"):
        if "str(" in line or ".value" in line or ".exception" in line or "match" in line:
            found.extend((m.group(1)[1:-1],) for m in _STRING.finditer(line))
    return tuple(found)


def _enclosing(
    defs: list[tuple[int, int, str, str]], starts: list[int], text: str, offset: int
) -> str | None:
    line_start = text.rfind("\n", 0, offset) + 1
    indent = len(text[line_start:offset]) - len(text[line_start:offset].lstrip())
    function = None
    for k in range(bisect_right(starts, offset) - 1, -1, -1):
        _, level, kind, name = defs[k]
        if function is None:
            if kind == "def" and level < indent:
                function = (level, name)
        elif kind == "class" and level < function[0]:
            return f"{name}.{function[1]}"
        elif level < function[0] and kind == "def":
            return function[1]
        if function is not None and level == 0:
            break
    return None if function is None else function[1]


def find_tests(root: Path, sites: Sequence[ErrorSite]) -> dict[str, tuple[TestRef, ...]]:
    """For each site id, the tests of the tree at `root` that trigger it."""
    index = TestIndex(sites)
    found: dict[int, list[tuple[int, TestRef]]] = defaultdict(list)
    for rel, text in _read_tests(root):
        for expectation in expectations(rel, text):
            hits = index.match(expectation)
            if len(hits) > _TOO_VAGUE:
                continue
            if len(hits) > _AMBIGUOUS or _short(expectation):
                hits = [i for i in hits if _named_in(sites[i], text)][:_AMBIGUOUS]
            for i in hits:
                found[i].append((len(hits), expectation.test))
    out: dict[str, tuple[TestRef, ...]] = {}
    for i, refs in found.items():
        refs.sort(key=lambda r: (r[0], r[1].file, r[1].line))
        unique = list(dict.fromkeys(ref for _, ref in refs))
        out[sites[i].id] = tuple(unique[:MAX_TESTS])
    return out


def _short(expectation: Expectation) -> bool:
    """A pattern too short to pin one error down without the test naming its code."""
    return all(sum(len(p) for p in alt) < 24 for alt in expectation.alternatives)


def _named_in(site: ErrorSite, text: str) -> bool:
    parts = site.location.function.split(".")
    return any(p in text for p in parts if p != "<module>" and not p.startswith("__"))


def _read_tests(root: Path) -> Iterable[tuple[str, str]]:
    for rel in test_files(root):
        try:
            with open(os.path.join(root, rel), "rb") as handle:
                data = handle.read(MAX_FILE + 1)
        except OSError:
            continue
        if len(data) > MAX_FILE or (b"raises" not in data and b"assertRaises" not in data):
            continue
        yield rel, data.decode("utf-8", errors="replace")
