# What the matcher keeps in memory: every site once per id (its versions merged), every
# distinct template once, an inverted index from words of the templates' literal parts to
# templates, and an index from file names to sites for traceback frames.
from __future__ import annotations

import heapq
import itertools
import math
import string
from collections.abc import Iterable
from dataclasses import dataclass, field

from packaging.utils import canonicalize_name

from errdex.match._align import normalize_literal
from errdex.model import ErrorSite, Hole, Message, Record
from errdex.store import version_key

__all__ = ["Index", "Occurrence", "Site", "Template", "features", "words"]

_TOKEN_TABLE = str.maketrans({c: " " for c in string.punctuation if c != "_"})
MIN_INDEXED_LITERAL = 4  # templates with fewer literal characters fit anything: frames only
MAX_RARE_DF = 0.02  # a word in more than this share of templates is too common to pick by
RARE_WORDS = 10
CANDIDATES = 32
MIN_KEYS = 4  # look up at least this many keys, however common
_ALIASES = {"EnvironmentError": "OSError", "IOError": "OSError", "WindowsError": "OSError"}


def words(text: str) -> list[str]:
    """Return the lower-case words of `text`, in order."""
    return text.lower().translate(_TOKEN_TABLE).split()


def features(text: str) -> set[str]:
    """Return the words (two characters or more) of `text` and its pairs of adjacent words:
    the keys of the inverted index. Pairs are far rarer than their words."""
    ws = words(text)
    out = {w for w in ws if len(w) > 1}
    out.update(a + " " + b for a, b in itertools.pairwise(ws))
    return out


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
    exception: str  # as written at the raise
    exception_names: frozenset[str]  # its class, aliases and known bases (last components)
    text: str | None  # message.text of the record
    holes: tuple[tuple[str, ...], ...]  # hole expressions per gap between literals
    template: Template | None
    occurrences: list[Occurrence] = field(default_factory=list)  # oldest version first


def _template_shape(message: Message) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    lits: list[str] = []
    holes: list[tuple[str, ...]] = []
    buf: list[str] = []
    group: list[str] = []
    for part in message.parts:
        if isinstance(part, Hole):
            if not group:
                lits.append("".join(buf))
                buf = []
            group.append(part.expr)
        else:
            if group:
                holes.append(tuple(group))
                group = []
            buf.append(part.text)
    if group:
        holes.append(tuple(group))
    lits.append("".join(buf))
    norm = [normalize_literal(lit) for lit in lits]
    norm[0] = norm[0].lstrip()
    norm[-1] = norm[-1].rstrip()
    return tuple(norm), tuple(holes)


class Index:
    """The in-memory tables the matcher queries; built once from the store's records."""

    def __init__(self, records: Iterable[Record]) -> None:
        self.sites: dict[tuple[str, str], Site] = {}
        self.templates: list[Template] = []
        by_lits: dict[tuple[str, ...], Template] = {}
        versions: dict[str, set[str]] = {}
        for rec in records:
            pkg_display = rec.package
            pkg = canonicalize_name(pkg_display)
            version = rec.version
            versions.setdefault(pkg, set()).add(version)
            loc = rec.site.location
            occ = Occurrence(version, loc.file, loc.line, loc.function)
            key = (pkg, rec.id)
            site = self.sites.get(key)
            if site is None:
                site = self._new_site(rec.site, pkg, pkg_display, by_lits)
                self.sites[key] = site
            site.occurrences.append(occ)
        self.newest: dict[str, str] = {
            pkg: max(vs, key=version_key) for pkg, vs in versions.items()
        }
        self.versions: dict[str, list[str]] = {
            pkg: sorted(vs, key=version_key) for pkg, vs in versions.items()
        }
        for site in self.sites.values():
            site.occurrences.sort(key=lambda o: version_key(o.version))
        self._build_words()
        self._build_files()

    def _new_site(
        self,
        error: ErrorSite,
        pkg: str,
        pkg_display: str,
        by_lits: dict[tuple[str, ...], Template],
    ) -> Site:
        exc = error.exception
        names = exception_names([exc.name, exc.qualname, *exc.bases])
        message = error.message
        template: Template | None = None
        holes: tuple[tuple[str, ...], ...] = ()
        text: str | None = None
        if message is not None:
            text = message.text
            lits, holes = _template_shape(message)
            template = by_lits.get(lits)
            if template is None:
                template = Template(lits, sum(len(lit) for lit in lits))
                by_lits[lits] = template
                self.templates.append(template)
        site = Site(
            id=error.id,
            package=pkg,
            package_display=pkg_display,
            exception=exc.name,
            exception_names=names,
            text=text,
            holes=holes,
            template=template,
        )
        if template is not None:
            template.sites.append(site)
        return site

    def _build_words(self) -> None:
        postings: dict[str, list[int]] = {}
        for tid, template in enumerate(self.templates):
            if template.lit_len < MIN_INDEXED_LITERAL:
                continue
            keys: set[str] = set()
            for lit in template.lits:
                keys |= features(lit)
            for key in keys:
                postings.setdefault(key, []).append(tid)
        self.postings = postings
        self.rare_df = max(50, int(len(self.templates) * MAX_RARE_DF))
        # how much evidence each template can get at most: the rarity of all its keys
        mass = [0.0] * len(self.templates)
        for posting in postings.values():
            weight = self.idf(len(posting))
            for tid in posting:
                mass[tid] += weight
        self.norm = [1.0 / math.sqrt(m) if m > 0 else 0.0 for m in mass]

    def _build_files(self) -> None:
        # basename -> relative path (also without a leading "src/") -> sites in it
        files: dict[str, dict[str, list[tuple[Site, Occurrence]]]] = {}
        for site in self.sites.values():
            for occ in site.occurrences:
                base = occ.file.rsplit("/", 1)[-1]
                rels = files.setdefault(base, {})
                rels.setdefault(occ.file, []).append((site, occ))
                if occ.file.startswith("src/"):
                    rels.setdefault(occ.file[4:], []).append((site, occ))
        self.files = files

    def text_candidates(self, text: str) -> list[Template]:
        """Return the templates that share the most rare words with `text`."""
        known = []
        for key in features(text):
            posting = self.postings.get(key)
            if posting is not None:
                known.append((len(posting), key))
        if not known:
            return []
        known.sort()
        chosen = [(df, w) for df, w in known if df <= self.rare_df][:RARE_WORDS]
        if len(chosen) < MIN_KEYS:
            chosen = known[:MIN_KEYS]
        # Weighted by rarity (inverse document frequency); plain dict arithmetic over
        # short posting lists, since only rare words are looked up.
        scores: dict[int, float] = {}
        get = scores.get
        for df, word in chosen:
            weight = self.idf(df)
            for tid in self.postings[word]:
                scores[tid] = get(tid, 0.0) + weight
        norm = self.norm
        ranked = [(score * norm[tid], tid) for tid, score in scores.items()]
        best = heapq.nlargest(CANDIDATES, ranked) if len(ranked) > CANDIDATES else ranked
        return [self.templates[tid] for _, tid in best]

    def idf(self, df: int) -> float:
        return math.log((1 + len(self.templates)) / df)

    def frame_sites(self, path: str) -> list[tuple[Site, Occurrence]]:
        """Return (site, occurrence) of every indexed file that `path` ends with."""
        base = path.rsplit("/", 1)[-1]
        rels = self.files.get(base)
        if not rels:
            return []
        out: list[tuple[Site, Occurrence]] = []
        for rel, entries in rels.items():
            if path == rel or path.endswith("/" + rel):
                out.extend(entries)
        return out
