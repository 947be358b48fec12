# Read one file into FileFacts, or say why it was skipped. Runs in worker processes.
from __future__ import annotations

import ast
import io
import tokenize

from errdex.extract.facts import FileFacts
from errdex.extract.visitor import FileVisitor

MAX_FILE_BYTES = 8 * 1024 * 1024


class Skip(Exception):
    """This file cannot be read as Python; the message says why."""


def decode(data: bytes) -> str:
    """Source text of a Python file, honouring a BOM or a PEP 263 coding cookie."""
    head = data[:400]
    if b"coding" in head or head.startswith(b"\xef\xbb\xbf"):
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding).removeprefix("\ufeff")
    return data.decode()


def parse_file(
    data: bytes,
    path: str,
    module: str,
    *,
    strict: bool = False,
    want_calls: frozenset[int] = frozenset(),
) -> FileFacts:
    """Return the facts of one file's source bytes; raise Skip when it is not usable."""
    if len(data) > MAX_FILE_BYTES:
        raise Skip(f"file is {len(data):,} bytes, over the {MAX_FILE_BYTES:,}-byte cap")
    try:
        text = decode(data)
        tree = ast.parse(text, path)
    except SyntaxError as exc:
        where = "" if exc.lineno is None else f" (line {exc.lineno})"
        raise Skip(f"does not parse: {exc.msg}{where}") from None
    except (UnicodeDecodeError, LookupError) as exc:
        raise Skip(f"cannot decode: {exc}") from None
    except ValueError as exc:  # e.g. source contains null bytes
        raise Skip(f"cannot parse: {exc}") from None
    except (RecursionError, MemoryError):
        raise Skip("too deeply nested to parse") from None
    visitor = FileVisitor(text, path, module, strict=strict, want_calls=want_calls)
    try:
        return visitor.visit_module(tree)
    except RecursionError:
        raise Skip("too deeply nested to analyse") from None
