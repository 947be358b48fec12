# Turning what a user pasted into what the matcher compares: the exception messages it
# holds (with the class shown before each, if any) and the traceback frames above each.
# User text is only ever scanned with str methods and RE2 (linear time), never with `re`.
from __future__ import annotations

from dataclasses import dataclass

import re2

from errdex.languages import is_cython

__all__ = ["Frame", "Segment", "clean_lines", "parse_lines", "parse_paste"]

# CSI (colours, cursor moves), OSC (hyperlinks, titles) and the two-byte escapes.
_ANSI = re2.compile(r"\x1b\[[0-9;:?<=>]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]")

# Prefixes a process or launcher puts on every line; they say nothing about where a
# log record starts: `(APIServer pid=123) `, `[rank4]: `, a markdown quote.
_PROCESS_PREFIX = re2.compile(r"(?:\S*\s?pid=\d+\)\s?|\[rank\d+\]:\s?|>\s?(?:[>\s]\s?)*)")

_LEVEL = r"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL|TRACE)"
# Prefixes of a log record: when one different from the exception line's appears, the
# exception's message is over and the next record begins.
_RECORD_PREFIX = re2.compile(
    r"(?:"
    + _LEVEL
    # vLLM: ERROR 11-29 10:00:00 [f.py:1]
    + r"\s+\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?\s+\[[^\]]*\]\s?"
    + r"|\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?"
    + r"(?:\s*[-|]\s*|\s+)?(?:\[?"
    + _LEVEL
    + r"\]?(?:\s*[-|:]\s*|\s+))?"  # 2025-01-18 10:00:00,123 - ERROR - / [2025-...] [WARNING]
    + r"(?:[\w.<>-]+:[\w.<>-]+:\d+ - )?"  # loguru: 2025-01-18 10:00:00.123 | ERROR | m:f:12 -
    + r"|\["
    + _LEVEL
    + r"[^\]]*\]\s?"  # [WARNING:swift]
    + r"|"
    + _LEVEL
    + r":[\w.]*:"  # logging.basicConfig: ERROR:root:
    + r")"
)

# An exception class printed ahead of its message inside other text (pytest summaries,
# HTTP client errors): a dotted name whose last part reads as an exception class.
_EMBEDDED_EXCEPTION = re2.compile(
    r"(?:^|[\s(\[{'\"])((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*"
    r"(?:Error|Exception|Warning|Exit|Interrupt|Failure|Group)): "
)

_EXCEPTION_SUFFIXES = ("Error", "Exception", "Warning", "Exit", "Interrupt", "Failure", "Group")
_TRACEBACK_HEADERS = (
    "Traceback (most recent call last):",
    "Exception Group Traceback (most recent call last):",
)
_CHAIN_MARKERS = (
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
)
# rich.logging.RichHandler: "[12/01/26 15:00:00] ERROR    message ...   file.py:12", the
# time left blank when it repeats, the level padded to eight. A long message wraps inside
# its column (a word longer than the column is cut mid-word) and the path is on the
# record's first row only; _unwrap_rich takes the column back out.
_RICH_RECORD = re2.compile(
    r"(?:\[[^\]]{4,40}\]| {8,40}) (?:DEBUG   |INFO    |WARNING |ERROR   |CRITICAL|NOTSET  ) "
)
_RICH_PATH = re2.compile(r"\s{2,}[^\s:]+:\d+$")
_RICH_FOLD = 20  # a row of one word this long, as wide as the widest row: a cut word
_BOX_DRAWING = frozenset(chr(c) for c in range(0x2500, 0x2580))
_VSCODE_HEAD = "Exception has occurred: "
_BOX_EDGES = "│┃║╎┆"
_BOX_CORNERS = "╭╰┏┗╔╚┌└"


@dataclass(frozen=True, slots=True)
class Frame:
    """One `File "...", line N, in func` entry of a traceback."""

    path: str  # with "/" separators
    line: int
    function: str


@dataclass(frozen=True, slots=True)
class Segment:
    """One exception found in the paste: the class shown (if any), its message, and the
    frames of the traceback printed above it (oldest first)."""

    exception: str | None
    message: str
    frames: tuple[Frame, ...] = ()


@dataclass(slots=True)
class _Line:
    text: str  # without ANSI codes, log prefixes or box edges
    record: str  # the log-record prefix stripped from it, digits removed ("" if none)


# What a line must show for each regex above to match at its start: most lines show
# neither, and skip both calls (a paste of 100,000 short lines is 100,000 lines).
_PROCESS_STARTS = ("[", ">")
_RECORD_STARTS = frozenset("DIWECFT[0123456789")


def _strip_prefixes(line: str) -> tuple[str, str]:
    record = ""
    for _ in range(6):
        if not line:
            break
        m = (
            _PROCESS_PREFIX.match(line)
            if line.startswith(_PROCESS_STARTS) or "pid=" in line
            else None
        )
        if m is not None and m.end() > 0:
            line = line[m.end() :]
            continue
        m = _RECORD_PREFIX.match(line) if line[0] in _RECORD_STARTS else None
        if m is not None and m.end() > 0:
            record += "".join(c for c in line[: m.end()] if not c.isdigit())
            line = line[m.end() :]
            continue
        break
    return line, record


def _strip_box(line: str) -> str | None:
    """Remove rich's box edges and exception-group bars; None for a separator line."""
    body = line.lstrip()
    if not body:
        return line
    if body[0] in _BOX_CORNERS or body.startswith(("+-", "+=")):
        return None if "Traceback" not in body else "Traceback (most recent call last):"
    if body[0] in _BOX_EDGES or body.startswith("| ") or body == "|":
        body = body[1:]
        if body.startswith(" "):
            body = body[1:]
        body = body.rstrip()
        if body and body[-1] in _BOX_EDGES:
            body = body[:-1].rstrip()
        return body
    if body.startswith("+ ") and "Traceback" in body:
        return body[2:]
    return line


def _unwrap_rich(raw: list[str]) -> list[tuple[str, str]]:
    """(line, rich record) pairs of `raw` lines: the rows of each RichHandler record
    without its time, level and path columns, a word cut at the column's edge made whole;
    other lines as they are, with record ""."""
    out: list[tuple[str, str]] = []
    column, records, record, rows = 0, 0, "", list[str]()

    def cut(row: str, widest: int) -> bool:
        """Whether `row` is the head of a word cut at the column's edge."""
        if len(row) != widest or widest < _RICH_FOLD or row[0] == " " or " " in row:
            return False
        return not any(c in _BOX_DRAWING for c in row)

    def flush() -> None:
        widest = max(map(len, rows), default=0)
        merged: list[str] = []
        for row in rows:
            if merged and cut(merged[-1], widest) and row[:1] not in ("", " "):
                merged[-1] += row
            else:
                merged.append(row)
        out.extend((row, record) for row in merged)
        rows.clear()

    for line in raw:
        head = _RICH_RECORD.match(line) if line[:1] in ("[", " ") else None
        if head is not None:
            flush()
            column, records = head.end(), records + 1
            # each record its own: its rows end where the next record's head is
            record = f"rich {records} {line[column - 9 : column].strip()}"
            first = line[column:].rstrip()
            path = _RICH_PATH.search(first)
            rows.append(first[: path.start()] if path is not None else first)
        elif column and (not line.strip() or line[:column].isspace()):
            rows.append(line[column:].rstrip())
        else:
            flush()
            column = 0
            out.append((line, ""))
    flush()
    return out


def clean_lines(text: str) -> list[tuple[str, str]]:
    """Return (line, record prefix) pairs of `text` without ANSI codes, CR line ends,
    per-line log prefixes, RichHandler columns and rich/exception-group box edges.
    Separator lines become empty strings with record "-"."""
    text = _ANSI.sub("", text) if "\x1b" in text else text
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    raw_lines = text.split("\n")
    rich = "    " in text and any(r.startswith(("[", " " * 8)) for r in raw_lines)
    pairs = _unwrap_rich(raw_lines) if rich else [(raw, "") for raw in raw_lines]
    out: list[tuple[str, str]] = []
    for raw, rich_record in pairs:
        line, record = _strip_prefixes(raw.rstrip())
        record = rich_record + record
        boxed = _strip_box(line)
        if boxed is None:
            out.append(("", "-"))
            continue
        line, more = _strip_prefixes(boxed)
        out.append((line, record + more))
    return out


def _is_dotted_name(name: str) -> bool:
    return bool(name) and all(part.isidentifier() for part in name.split("."))


def _looks_like_exception(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return last.endswith(_EXCEPTION_SUFFIXES) or last in ("StopIteration", "KeyboardInterrupt")


def exception_head(line: str, *, strict: bool) -> tuple[str, str] | None:
    """Split `Name: message` (or a bare `Name`) into (name, message). With `strict`, the
    name must read as an exception class."""
    if line.startswith(_VSCODE_HEAD):
        name = line[len(_VSCODE_HEAD) :].strip()
        return (name, "") if _is_dotted_name(name) else None
    colon = line.find(":")
    name = line if colon < 0 else line[:colon]
    if (strict and not _looks_like_exception(name)) or not _is_dotted_name(name):
        return None
    if colon < 0:
        return (name, "") if (strict or _looks_like_exception(name) or "." in name) else None
    rest = line[colon + 1 :]
    if rest and not rest.startswith(" "):
        return None
    return name, rest[1:] if rest else ""


def _parse_frame(line: str) -> Frame | None:
    body = line.strip()
    if body.startswith('File "'):
        end = body.find('", line ', 6)
        if end < 0:
            return None
        rest = body[end + 8 :]
        digits = rest.split(",", 1)[0].strip()
        if not digits.isdigit():
            return None
        func = rest.split(", in ", 1)[1].strip() if ", in " in rest else ""
        path = _cython_path(body[6:end].replace("\\", "/"), func)
        return Frame(path=path, line=int(digits), function=func)
    # IPython 8: `File /path/to/file.py:123, in func(arg)` (`~` for the home folder)
    if body.startswith("File ") and ", in " in body:
        where, func = body[5:].split(", in ", 1)
        path, _, digits = where.rpartition(":")
        if digits.isdigit() and path.endswith((".py", ".pyx")):
            name = func.split("(", 1)[0].strip()
            return Frame(path=path.replace("\\", "/"), line=int(digits), function=name)
    # rich: `/path/to/file.py:123 in func`
    if " in " in body and "│" not in body:
        where, func = body.rsplit(" in ", 1)
        path, _, digits = where.rpartition(":")
        if digits.isdigit() and path.endswith((".py", ".pyx")) and " " not in func.strip():
            return Frame(path=path.replace("\\", "/"), line=int(digits), function=func.strip())
    return None


def _cython_path(path: str, function: str) -> str:
    """A compiled Cython frame's file in its package: Cython may name only the file
    (`File "parsers.pyx", line 735, in pandas._libs.parsers.TextReader.__cinit__`); the
    function's module says its folder (`pandas/_libs/parsers.pyx`). Any other path as is
    (a .pxi's folder is not known: the matcher fits it by its name alone)."""
    if "/" in path or not is_cython(path):
        return path
    parts = function.split(".")
    stem = path.rpartition(".")[0]
    if stem not in parts[:-1]:
        return path
    at = parts.index(stem)
    return "/".join([*parts[:at], path]) if at else path


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


class _Builder:
    def __init__(self) -> None:
        self.segments: list[Segment] = []
        self.frames: list[Frame] = []
        self.exception: str | None = None
        self.lines: list[str] | None = None
        self.record = ""

    def start(self, name: str, first: str, record: str) -> None:
        if self.lines is not None:
            self.close()
        self.exception, self.lines, self.record = name, [first], record

    def close(self) -> None:
        if self.lines is not None:
            while self.lines and not self.lines[-1].strip():
                self.lines.pop()
            message = "\n".join(self.lines)
            self.segments.append(Segment(self.exception, message, tuple(self.frames)))
            self.frames = []
        elif self.frames:
            self.segments.append(Segment(None, "", tuple(self.frames)))
            self.frames = []
        self.exception, self.lines = None, None


def parse_paste(text: str) -> list[Segment]:
    """Return the exceptions shown in `text`, in the order they appear.

    A traceback gives one segment per exception of its chain (frames attached); a bare
    message gives one segment, with the class if the text shows one. Never raises.
    """
    return parse_lines(clean_lines(text))


def parse_lines(lines: list[tuple[str, str]]) -> list[Segment]:
    """parse_paste of the text that clean_lines made `lines` of."""
    b = _Builder()
    in_traceback = False
    base_indent = 0
    loose: list[str] = []
    pytest_e: int | None = None  # in pytest's `E   Class: message` lines: their indent
    for line, record in lines:
        body = line.strip()
        if record == "-":
            if b.lines is None and b.frames:
                continue  # rich's box ends before the exception line its frames lead to
            b.close()
            pytest_e = None
            continue
        if _pytest_error_line(line):
            # pytest's report: the exception is the `E ` lines and nothing else (the
            # locals --showlocals prints after them are not its message)
            text = line[1:]
            if pytest_e is not None and b.lines is not None:
                b.lines.append(text[pytest_e:] if text[:pytest_e].isspace() else text.strip())
                continue
            head = exception_head(text.strip(), strict=True)
            if head is not None:
                b.start(head[0], head[1], record)
                pytest_e = _indent(text)
                continue
        elif pytest_e is not None:
            pytest_e = None
            b.close()
        where = _pytest_location(body)
        if where is not None:
            path, number, rest = where
            if rest.startswith("in "):  # --tb=short: `pkg/mod.py:12: in func`
                if b.lines is not None:
                    b.close()
                b.frames.append(Frame(path=path, line=number, function=rest[3:].strip()))
                continue
            last = b.segments[-1] if b.segments else None
            shown = rest.rpartition(".")[2]
            if (
                last is not None
                and not last.frames
                and last.exception is not None
                and (last.exception.rpartition(".")[2] == shown)
            ):
                # --tb=long: `pkg/mod.py:12: ValueError` under the `E` lines: where it
                # was raised
                b.segments[-1] = Segment(last.exception, last.message, (Frame(path, number, ""),))
                continue
        if body in _TRACEBACK_HEADERS or body.endswith(_TRACEBACK_HEADERS):
            b.close()
            in_traceback, base_indent = True, _indent(line)
            continue
        if body in _CHAIN_MARKERS:
            b.close()
            in_traceback = False
            continue
        frame = _parse_frame(line)
        if frame is not None:
            if b.lines is not None:
                b.close()
            if not in_traceback:
                in_traceback, base_indent = True, max(0, _indent(line) - 2)
            b.frames.append(frame)
            continue
        if b.lines is not None:
            if body and record != b.record:
                b.close()  # the next log record: the message is over
                loose.append(line)
                continue
            head = exception_head(body, strict=True) if _indent(line) == 0 else None
            if head is not None:
                b.start(head[0], head[1], record)
                continue
            if body.startswith(_VSCODE_HEAD):
                b.start(*(exception_head(body, strict=True) or ("", "")), record)
                continue
            b.lines.append(line)
            continue
        if in_traceback and b.frames:
            if not body or _indent(line) > base_indent:
                continue  # source lines, carets, "...<5 lines>..."
            head = exception_head(body, strict=False)
            if head is not None:
                b.start(head[0], head[1], record)
            continue
        head = exception_head(body, strict=True)
        if head is not None:
            b.start(head[0], head[1], record)
        else:
            loose.append(line)
    b.close()
    segments = [s for s in b.segments if s.message.strip() or s.frames]
    if any(s.message.strip() for s in segments):
        return segments
    whole = "\n".join(loose).strip()
    if not whole:
        return segments
    return [*segments, embedded_segment(whole)]


def _pytest_error_line(line: str) -> bool:
    """Whether `line` is one of pytest's `E   ...` lines (E, then spaces)."""
    return line.startswith("E  ") or line == "E"


def _pytest_location(body: str) -> tuple[str, int, str] | None:
    """(path, line, rest) of pytest's `path/to/mod.py:12: rest` line, else None."""
    cut = body.find(".py:")
    if cut <= 0 or " " in body[:cut]:
        return None
    number, colon, rest = body[cut + 4 :].partition(":")
    if not colon or not number.isdigit() or (rest and not rest.startswith(" ")):
        return None
    return body[: cut + 3].replace("\\", "/"), int(number), rest.strip()


def embedded_segment(text: str) -> Segment:
    """Return `text` as one segment, taking the first `SomethingError: ` inside it as the
    class shown and what follows as the message."""
    m = _EMBEDDED_EXCEPTION.search(text)
    if m is None:
        return Segment(None, text)
    return Segment(m.group(1), text[m.end() :])
