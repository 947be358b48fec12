# What the web layer reads, with the few caches that keep pages fast: the snapshot list,
# per-version summaries, related records and the matcher. Each is rebuilt when the
# store's generation changes (a one-row read, at most every `recheck` seconds), so a
# server keeps up with a new index without reading the snapshot list again and again.
from __future__ import annotations

import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

from errdex.match import Matcher
from errdex.model import Record, StoredSnapshot
from errdex.repos import github_name
from errdex.store import Store

MAX_CACHED_RECORDS = 4096  # related records kept decoded: an error page lists up to 12


@dataclass(frozen=True, slots=True)
class VersionSummary:
    """Counts over every error of one package version."""

    total: int
    exceptions: tuple[tuple[str, int], ...]  # (name as written, count), most common first
    modules: tuple[tuple[str, int], ...]  # (file, count), by file


class WebData:
    """The store plus caches, shared by every request of a server (thread-safe)."""

    def __init__(self, store: Store, *, recheck: float = 1.0) -> None:
        self.store = store
        self._recheck = recheck
        self._lock = threading.Lock()
        self._checked: float | None = None
        self._snapshots: list[StoredSnapshot] = []
        self._generation: int | None = None
        self._summaries: dict[tuple[str, str], VersionSummary] = {}
        self._records: OrderedDict[tuple[str, str], Record | None] = OrderedDict()
        self._matcher: Matcher | None = None
        self._matcher_lock = threading.Lock()

    def snapshots(self) -> list[StoredSnapshot]:
        """Every stored snapshot (see Store.snapshots), as of at most `recheck` seconds
        ago."""
        now = time.monotonic()
        if self._fresh(now):
            return self._snapshots
        with self._lock:
            if not self._fresh(now):
                generation = self.store.generation()
                if generation != self._generation:
                    self._snapshots = self.store.snapshots()
                    self._summaries = {}
                    self._records = OrderedDict()
                    self._generation = generation
                self._checked = time.monotonic()
        return self._snapshots

    def _fresh(self, now: float) -> bool:
        return self._checked is not None and now - self._checked < self._recheck

    def snapshot(self, package: str, version: str) -> StoredSnapshot | None:
        """The snapshot of `package` `version`, or None."""
        for snap in self.snapshots():
            if snap.package == package and snap.version == version:
                return snap
        return None

    def summary(
        self, package: str, version: str, records: Iterable[Record] | None = None
    ) -> VersionSummary:
        """Counts by exception and by file over every error of `package` `version`;
        `records`, if given, are all of them (read already), else they are read."""
        self.snapshots()
        key = (package, version)
        cached = self._summaries.get(key)
        if cached is not None:
            return cached
        exceptions: Counter[str] = Counter()
        modules: Counter[str] = Counter()
        if records is None:  # counted by the store: decoding every record took seconds
            for name, file, count in self.store.tallies(package, version):
                exceptions[name] += count
                modules[file] += count
        else:
            for record in records:
                exceptions[record.site.exception.name] += 1
                modules[record.site.location.file] += 1
        summary = VersionSummary(
            total=sum(modules.values()),
            exceptions=tuple(sorted(exceptions.items(), key=lambda kv: (-kv[1], kv[0]))),
            modules=tuple(sorted(modules.items())),
        )
        self._summaries[key] = summary
        return summary

    def related(self, site_id: str, package: str) -> Record | None:
        """The newest record `site_id` of `package` (Store.get), from a cache of the
        most recently asked: error pages of one package list the same few related
        errors again and again."""
        self.snapshots()
        key = (site_id, package)
        with self._lock:
            if key in self._records:
                self._records.move_to_end(key)
                return self._records[key]
        found = self.store.get(site_id, package=package)
        with self._lock:
            self._records[key] = found
            if len(self._records) > MAX_CACHED_RECORDS:
                self._records.popitem(last=False)
        return found

    def matcher(self) -> Matcher:
        """A matcher over every indexed version, made anew when the snapshots change
        (a cheap generation check per call)."""
        with self._matcher_lock:
            if self._matcher is None:
                self._matcher = Matcher(self.store)
            else:
                self._matcher = self._matcher.fresh()
            return self._matcher

    def warm(self) -> None:
        """Build the caches a first request would otherwise wait for."""
        self.matcher()


def repo_name(repo_url: str | None, package: str) -> str:
    """`owner/name` for a GitHub URL, else the package name."""
    return github_name(repo_url) or package
