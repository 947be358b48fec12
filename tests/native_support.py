# Helpers for the native-source tests: native code in, sites out, through the same
# readers and linker an index uses.
from __future__ import annotations

import textwrap

from errdex.extract.native.facts import NativeFacts
from errdex.extract.native.link import NativeLinker
from errdex.extract.native.parse import parse_native
from errdex.model import ErrorSite


def native_facts(code: str, path: str) -> NativeFacts:
    return parse_native(textwrap.dedent(code).encode(), path)


def native_snippet(
    code: str,
    *,
    path: str = "csrc/ops.cpp",
    package: str = "pkg",
    others: dict[str, str] | None = None,
) -> list[ErrorSite]:
    """The sites of one native file given as source text (dedented), linked with the
    `others` (path -> source) as files of the same tree, in line order."""
    files = [native_facts(code, path)]
    files += [native_facts(text, name) for name, text in (others or {}).items()]
    return [s for s in NativeLinker(package, files).sites() if s.location.file == path]


def by_message(sites: list[ErrorSite], text: str) -> ErrorSite:
    found = [s for s in sites if s.message is not None and s.message.text == text]
    assert len(found) == 1, [s.message and s.message.text for s in sites]
    return found[0]
