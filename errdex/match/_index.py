# What the matcher asks of the store's match index: the templates that share the most
# rare words with a text, and the sites in the file of a traceback frame. Only those
# candidates are read (see errdex/store/_match_index.py); sites and templates met once
# are kept for the life of the Index, so a server's repeated queries cost little.
from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from errdex.languages import is_cython
from errdex.model import IndexedSite
from errdex.names import canonical as canonicalize_name
from errdex.store import Store, version_key
from errdex.text import features

__all__ = [
    "Index",
    "Occurrence",
    "Site",
    "Template",
    "exception_names",
    "frame_fit",
    "short_exception",
]

MAX_RARE_DF = 0.02  # a word in more than this share of templates is too common to pick by
RARE_WORDS = 10
CANDIDATES = 32
# Text scores are normalized by each template's key mass; that is read for the best
# raw scores only, ties kept, at least this many and at most MAX_PRESELECT.
PRESELECT = 4 * CANDIDATES
MAX_PRESELECT = 2000
MIN_KEYS = 4  # look up at least this many keys, however common
_ALIASES = {"EnvironmentError": "OSError", "IOError": "OSError", "WindowsError": "OSError"}


def exception_names(names: Iterable[str]) -> frozenset[str]:
    """Return the last component of each dotted name, with OSError's aliases folded."""
    out = set()
    for name in names:
        last = name.rsplit(".", 1)[-1]
        out.add(_ALIASES.get(last, last))
    return frozenset(out)


def short_exception(name: str) -> str:
    last = name.rsplit(".", 1)[-1]
    return _ALIASES.get(last, last)


@dataclass(slots=True)
class Occurrence:
    """Where a site is in one version."""

    version: str
    file: str
    line: int
    function: str


@dataclass(slots=True, eq=False)
class Template:
    """A distinct message template: normalized literal parts, a hole between each two."""

    lits: tuple[str, ...]
    lit_len: int
    sites: list[Site] = field(default_factory=list)


@dataclass(slots=True, eq=False)
class Site:
    """One error site (one id), across every version it appears in."""

    id: str
    package: str  # canonical name
    package_display: str  # as the store spells it
    exception: str  # the class raised, as the code writes it (ExceptionRef.name)
    exception_names: frozenset[str]  # its class, aliases and known bases (last components)
    qualnames: frozenset[str]  # the same, qualified (`requests.exceptions.InvalidSchema`)
    text: str | None  # message.text of the record
    holes: tuple[tuple[str, ...], ...]  # hole expressions per gap between literals
    template: Template | None
    occurrences: list[Occurrence] = field(default_factory=list)  # oldest version first


def frame_fit(path: str, file: str) -> int:
    """How much of a traceback frame's `path` an indexed `file` explains: the length of
    the file's path (without a leading src/ or lib/) that `path` ends with, or 0. A
    vendored copy (pip/_vendor/requests/...) fits its own frames better than the
    package it copies."""
    rels = (file, file[4:]) if file.startswith(("src/", "lib/")) else (file,)
    fit = max((len(rel) for rel in rels if path == rel or path.endswith("/" + rel)), default=0)
    if not fit and "/" not in path and is_cython(path) and file.endswith("/" + path):
        return len(path)  # compiled Cython names only the file (`parsers.pyx`)
    return fit


class Index:
    """The store's match index as the matcher queries it, for one state of the store
    (`generation`); `package` narrows every read to one package."""

    def __init__(self, store: Store, *, package: str | None = None) -> None:
        self.store = store
        self.package = None if package is None else canonicalize_name(package)
        self.generation = store.generation()
        self.total = store.template_count()
        self.rare_df = max(50, int(self.total * MAX_RARE_DF))
        versions: dict[str, list[str]] = {}
        for snap in store.snapshots():
            versions.setdefault(canonicalize_name(snap.package), []).append(snap.version)
        self.newest = {pkg: max(vs, key=version_key) for pkg, vs in versions.items()}
        self._sites: dict[tuple[str, str], Site] = {}
        self._templates: dict[int, Template] = {}
        self._complete: set[int] = set()  # templates whose sites are all loaded
        self._norms: dict[int, float] = {}
        self._frames: dict[str, list[tuple[Site, Occurrence]]] = {}

    def idf(self, df: int) -> float:
        return math.log((1 + self.total) / df)

    def text_candidates(self, text: str) -> list[Template]:
        """Return the templates that share the most rare words with `text`, best first."""
        counts = self.store.key_counts(features(text))
        if not counts:
            return []
        known = sorted((df, key) for key, df in counts.items())
        chosen = [(df, w) for df, w in known if df <= self.rare_df][:RARE_WORDS]
        if len(chosen) < MIN_KEYS:
            chosen = known[:MIN_KEYS]
        postings = self.store.postings([w for _, w in chosen])
        # Weighted by rarity (inverse document frequency), over short posting lists only.
        scores: dict[int, float] = {}
        get = scores.get
        for df, word in chosen:
            weight = self.idf(df)
            for tid in postings.get(word, ()):
                scores[tid] = get(tid, 0.0) + weight
        norms = self._norms_of(self._preselect(scores))
        ranked = [(scores[tid] * norm, tid) for tid, norm in norms.items()]
        best = [tid for _, tid in heapq.nlargest(CANDIDATES, ranked)]
        self._load(template_ids=[tid for tid in best if tid not in self._complete])
        return [self._templates[tid] for tid in best if tid in self._templates]

    def frame_sites(self, path: str) -> list[tuple[Site, Occurrence]]:
        """Return (site, occurrence) of every indexed file that `path` ends with."""
        base = path.rsplit("/", 1)[-1]
        if base not in self._frames:
            self._load(bases=[base])
            self._frames[base] = [
                (site, occ)
                for site in self._sites.values()
                for occ in site.occurrences
                if occ.file.rsplit("/", 1)[-1] == base
            ]
        out: list[tuple[Site, Occurrence]] = []
        for site, occ in self._frames[base]:
            if frame_fit(path, occ.file):
                out.append((site, occ))
        return out

    def _preselect(self, scores: dict[int, float]) -> list[int]:
        """The templates with the best raw scores, every tie of the last one kept."""
        if len(scores) <= PRESELECT:
            return list(scores)
        ordered = sorted(scores.items(), key=lambda item: -item[1])
        floor = ordered[PRESELECT - 1][1]
        return [tid for tid, score in ordered[:MAX_PRESELECT] if score >= floor]

    def _norms_of(self, template_ids: list[int]) -> dict[int, float]:
        missing = [tid for tid in template_ids if tid not in self._norms]
        if missing:
            for tid, mass in self.store.template_masses(missing, self.total).items():
                self._norms[tid] = 1.0 / math.sqrt(mass) if mass > 0 else 0.0
        return {tid: self._norms[tid] for tid in template_ids}

    def _load(self, *, template_ids: Sequence[int] = (), bases: Sequence[str] = ()) -> None:
        """Read the sites of `template_ids` (which then hold all their sites) and of the
        files named `bases`, every version of each."""
        if not template_ids and not bases:
            return
        rows = self.store.indexed_sites(
            template_ids=template_ids, bases=bases, package=self.package
        )
        groups: dict[tuple[str, str], list[IndexedSite]] = {}
        for row in rows:
            groups.setdefault((canonicalize_name(row.package), row.id), []).append(row)
        wanted = set(template_ids)
        for key, group in groups.items():
            site = self._sites.get(key)
            if site is None:
                site = self._sites[key] = self._site(key[0], group)
            if group[0].template_id in wanted and site.template is not None:
                site.template.sites.append(site)
        self._complete.update(template_ids)

    def _site(self, package: str, rows: list[IndexedSite]) -> Site:
        rows.sort(key=lambda r: version_key(r.version))
        first = rows[-1]
        template = None
        if first.template_id is not None and first.lits is not None:
            template = self._templates.get(first.template_id)
            if template is None:
                template = Template(first.lits, sum(len(lit) for lit in first.lits))
                self._templates[first.template_id] = template
        return Site(
            id=first.id,
            package=package,
            package_display=first.package,
            exception=first.exception,
            exception_names=exception_names(first.exception_names),
            qualnames=frozenset(n for n in first.exception_names if "." in n),
            text=first.text,
            holes=first.holes,
            template=template,
            occurrences=[Occurrence(r.version, r.file, r.line, r.function) for r in rows],
        )
