# The native half of an index's parse: the files the facts cache lacks are parsed in the
# index's worker processes (or here, without any) while the Python files are linked;
# then the native files are linked and their sites added to the extraction, with how
# many files and sites each language has.
from __future__ import annotations

import dataclasses
import os
from collections import Counter
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

from errdex.extract import Extraction
from errdex.extract.cache import FactsCache, pack, unpack_native
from errdex.extract.files import MAX_FILE_BYTES
from errdex.extract.native import facts_key
from errdex.extract.native.facts import NativeFacts
from errdex.extract.native.link import NativeLinker, reach
from errdex.extract.native.parse import NativeSkip, parse_native
from errdex.model import SkippedFile
from errdex.sources.reading import read_regular

_BATCH = 16
_OUR_FAILURE = "errdex could not analyse it"


def parse_one(root: str, rel: str) -> NativeFacts | str:
    """One native file's facts, or why it is skipped; a bug of ours skips the file too."""
    try:
        data = read_regular(os.path.join(root, rel), MAX_FILE_BYTES + 1)
        return parse_native(data, rel)
    except NativeSkip as exc:
        return str(exc)
    except OSError as exc:
        return f"cannot read: {exc.strerror}"
    except MemoryError:
        return "out of memory while parsing"
    except Exception as exc:  # odd code meeting a bug of ours: skip the file, say so
        return f"{_OUR_FAILURE} ({type(exc).__name__}: {exc}); please report"


def _parse_packed(root: str, paths: list[str]) -> list[tuple[str, bytes, NativeFacts | str | None]]:
    """Each file's outcome packed for the cache; one the cache cannot keep (nested too
    deep to write) is handed back as it is (the pool pickles it, between our own
    processes), with no packed bytes, and is not cached."""
    out: list[tuple[str, bytes, NativeFacts | str | None]] = []
    for rel in paths:
        outcome = parse_one(root, rel)
        packed = pack(outcome)
        out.append((rel, packed, None if packed else outcome))
    return out


class NativeJob:
    """Native files being parsed; `join` waits for them and adds their sites."""

    def __init__(
        self,
        pool: ProcessPoolExecutor | None,
        root: Path,
        files: tuple[tuple[str, str], ...],
        cache: FactsCache,
    ) -> None:
        self.root = root
        self.files = files
        self.cache = cache
        self.keys = {rel: facts_key(rel, file_digest) for rel, file_digest in files}
        cached = cache.load(list(self.keys.values())) if files else {}
        self.outcomes: dict[str, NativeFacts | str] = {}
        todo: list[str] = []
        for rel, key in self.keys.items():
            data = cached.get(key)
            try:
                if data is not None:
                    self.outcomes[rel] = unpack_native(data)
                    continue
            except Exception:  # a damaged entry is a miss: parsed again
                pass
            todo.append(rel)
        self.parsed = len(todo)
        self.futures: list[Future[list[tuple[str, bytes, NativeFacts | str | None]]]] = []
        self.fresh: list[tuple[str, bytes, NativeFacts | str | None]] = []
        if pool is not None and len(todo) > _BATCH:
            for i in range(0, len(todo), _BATCH):
                self.futures.append(pool.submit(_parse_packed, str(root), todo[i : i + _BATCH]))
        else:
            self.fresh = _parse_packed(str(root), todo)

    def join(
        self, extraction: Extraction, package: str, unreadable: tuple[SkippedFile, ...] = ()
    ) -> Extraction:
        """`extraction` with the native sites after the Python ones, the native files
        that were skipped among its skipped files, and the counts per language."""
        for future in self.futures:
            self.fresh.extend(future.result())
        for rel, data, kept in self.fresh:
            self.outcomes[rel] = unpack_native(data) if kept is None else kept
        self.cache.save(
            (self.keys[rel], data)
            for rel, data, _ in self.fresh
            if data
            and not (
                isinstance(self.outcomes[rel], str)
                and str(self.outcomes[rel]).startswith(_OUR_FAILURE)
            )
        )
        facts: list[NativeFacts] = []
        skipped: list[SkippedFile] = list(unreadable)
        for rel, _ in self.files:
            outcome = self.outcomes[rel]
            if isinstance(outcome, str):
                skipped.append(SkippedFile(path=rel, reason=outcome))
            else:
                facts.append(outcome)
        sites = tuple(NativeLinker(package, facts).sites())
        files = Counter(f.language for f in facts)
        found = Counter(s.location.language for s in sites)
        counts = tuple((language, files[language], found[language]) for language in sorted(files))
        written = extraction.written
        if written:  # one for each site: a native site's class is the one it names
            written = written + tuple(s.exception.qualname for s in sites)
        return dataclasses.replace(
            extraction,
            sites=extraction.sites + sites,
            written=written,
            skipped=extraction.skipped + tuple(skipped),
            native=counts,
            native_parsed=self.parsed,
            native_reach=tuple(reach(facts, sites).items()),
        )
