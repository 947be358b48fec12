# The match stage: text a user saw (a message, a fragment, a whole traceback in any of
# the shapes logs and terminals give it) -> the raise sites that produced it, ranked,
# with the values that filled each hole. Candidates come from an inverted index over the
# words of template literals and from the traceback's last frame; each candidate is
# confirmed by a linear-time alignment (see errdex/align.py). No backtracking regex ever runs
# over user text, and input is capped at MAX_INPUT_BYTES.
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from errdex.align import ELISIONS, Alignment, align, normalize
from errdex.errors import InputTooLarge
from errdex.match._index import Index, Occurrence, Site, Template, frame_fit, short_exception
from errdex.match._native import extension_module, is_native, not_indexed
from errdex.match._paste import (
    Frame,
    Segment,
    clean_lines,
    embedded_segment,
    exception_head,
    parse_lines,
)
from errdex.model import Match, MatchResult
from errdex.names import canonical as canonicalize_name
from errdex.store import Store, version_key

__all__ = ["MAX_INPUT_BYTES", "Match", "MatchResult", "Matcher", "too_large", "with_values"]

MAX_INPUT_BYTES = 256 * 1024
MAX_CLOSEST = 5
_MIN_SPECIFIC = 10  # literal characters a template needs to be credible on its own
_MIN_FRAGMENT = 15  # literal characters a cut fragment needs to confirm
_NEAR_SITES = 3  # sites kept per template that only nearly fits (for `closest`)
_FRAME_TABLES = 1024  # files whose sites a matcher keeps looked up by line and function


@dataclass(slots=True)
class _Candidate:
    site: Site
    occ: Occurrence
    key: tuple[Any, ...] = ()
    alignment: Alignment | None = None
    text: str = ""
    frame: int = 0  # 2: last frame is this raise's line; 1: its file and function
    fit: int = 0  # characters of the last frame's path the site's file explains
    exception_agrees: bool | None = None
    credible: bool = False
    exact: bool = False
    score: float = 0.0
    on_frame: bool = False
    text_ok: bool = False
    shown: str | None = None  # the exception class the text shows
    # what _judge reads, kept so that only a candidate that can still win is judged
    rank: int = 0
    segment: Segment | None = None
    elided: bool = False
    judged: bool = False
    # a native site of the package whose file the traceback's last frame is in: the
    # error came from its extension, called there
    called_into: bool = False
    excluded: bool = False  # a site that cannot have raised the extension class shown


@dataclass(frozen=True, slots=True)
class _FrameTable:
    pairs: list[tuple[Site, Occurrence]]
    by_line: dict[int, list[int]]
    by_name: dict[str, list[int]]


def _segment_key(segment: Segment) -> tuple[str | None, str, Frame | None]:
    """What _evaluate reads of a segment."""
    return segment.exception, segment.message, segment.frames[-1] if segment.frames else None


def _without_surrogates(text: str) -> str:
    """`text` with surrogate pairs joined and lone surrogates (a str from JSON's "\\ud800"
    can hold them; UTF-8 cannot) replaced by U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def _binary(text: str) -> bool:
    if "\x00" in text:
        return True
    sample = text[:4096]
    controls = sum(1 for c in sample if ord(c) < 32 and c not in "\t\n\r\x1b\x0c")
    return controls * 10 > len(sample)


def _dewrap(text: str) -> str:
    """Join lines a terminal broke mid-word (no space on either side of the break)."""
    lines = text.split("\n")
    out: list[str] = []
    run = [lines[0]]  # lines to join into one; `end` is the last character of the join
    end = lines[0][-1:]
    for line in lines[1:]:
        if end and line and not end.isspace() and not line[0].isspace():
            run.append(line)
        else:
            out.append("".join(run))
            run = [line]
        end = line[-1:]
    out.append("".join(run))
    return "\n".join(out)


def _variants(message: str) -> tuple[list[str], bool]:
    """Return the normalized forms of a message to try, and whether it ends elided."""
    text = normalize(message)
    elided = False
    for mark in ELISIONS:
        if text.endswith(mark):
            text, elided = text[: -len(mark)].rstrip(), True
            break
    out = [text]
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        out.append(text[1:-1])  # KeyError shows the repr of its message
    if "\n" in message.strip():
        dewrapped = normalize(_dewrap(message))
        if dewrapped not in out:
            out.append(dewrapped)
    elements = _tuple_elements(text)
    if elements is not None:  # `ValueError("Unknown string format:", s)` shows the tuple
        joined = " ".join(elements)
        if joined not in out:
            out.append(joined)
    return out, elided


def with_values(text: str, values: dict[str, str]) -> str:
    """`text` (a solution quoted from the message, a template) with each hole whose
    value the match read written as that value: "Perhaps you meant https://{url}?" with
    {"url": "example.com"} is "Perhaps you meant https://example.com?". Holes without a
    value stay as they are. One pass over `text`."""
    if not values or "{" not in text:
        return text
    out: list[str] = []
    i = 0
    while True:
        start = text.find("{", i)
        end = -1 if start < 0 else text.find("}", start + 1)
        if start < 0 or end < 0:
            out.append(text[i:])
            return "".join(out)
        inner = text[start + 1 : end]
        expr = inner.split("!", 1)[0].split(":", 1)[0]
        value = values.get(expr) if "{" not in inner else None
        out.append(text[i:start])
        out.append(text[start : end + 1] if value is None else value)
        i = end + 1


def _tuple_elements(text: str) -> list[str] | None:
    """The elements of a tuple as str() shows one, `('text', 'value', 3)`, when `text`
    is that, with at least two elements and one of them text; else None. One pass."""
    if len(text) < 6 or text[0] != "(" or text[-1] != ")":
        return None
    out: list[str] = []
    quoted = False
    i, end = 1, len(text) - 1
    while i < end:
        quote = text[i]
        if quote in "'\"":
            j = i + 1
            chars: list[str] = []
            while j < end and text[j] != quote:
                if text[j] == "\\" and j + 1 < end:
                    j += 1
                chars.append(text[j])
                j += 1
            if j >= end:
                return None
            out.append("".join(chars))
            quoted = True
            i = j + 1
        else:
            j = text.find(", ", i, end)
            j = end if j < 0 else j
            token = text[i:j].strip()
            if not token or "(" in token or "'" in token or '"' in token:
                return None
            out.append(token)
            i = j
        if i == end or (i == end - 1 and text[i] == ","):
            break
        if not text.startswith(", ", i):
            return None
        i += 2
    return out if quoted and len(out) >= 2 else None


class Matcher:
    """Matches user text against the sites of any packages and versions."""

    def __init__(self, store: Store, *, package: str | None = None) -> None:
        """A matcher over the match index of `store` (every indexed version; only
        `package`'s, if given). It reads the candidates of each query, not every record,
        and keeps what it read while the store is unchanged."""
        self._store = store
        self._package = package
        self._index = Index(store, package=package)
        self._lock = threading.Lock()  # the index fills its caches as queries go
        # per traceback path: the index's (site, occurrence) pairs of that file, and their
        # positions among them by line and by the last part of the function's name
        self._frames: dict[str, _FrameTable] = {}

    def fresh(self) -> Matcher:
        """This matcher, or a new one if snapshots were written since it was made."""
        if self._store.generation() == self._index.generation:
            return self
        return Matcher(self._store, package=self._package)

    def match(
        self,
        text: str | bytes,
        *,
        package: str | None = None,
        version: str | None = None,
        limit: int = 10,
    ) -> MatchResult:
        """Return the sites that produced `text`, best first, and the closest near misses.

        `package` ("name" or "name==version") and `version` narrow the search. Raises
        InputTooLarge over MAX_INPUT_BYTES; every other input (empty, binary, not UTF-8,
        no message) gives a MatchResult with a `note` saying why nothing matched.
        """
        if isinstance(text, bytes):
            if len(text) > MAX_INPUT_BYTES:
                raise too_large(len(text))
            try:
                text = text.decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                return MatchResult(
                    query="",
                    note=f"the input is not UTF-8 text (undecodable byte at offset {exc.start});"
                    " paste the error as text",
                )
        if len(text) * 4 > MAX_INPUT_BYTES:
            size = len(text.encode("utf-8", "surrogatepass"))
            if size > MAX_INPUT_BYTES:
                raise too_large(size)
        text = _without_surrogates(text)
        if not text.strip():
            return MatchResult(
                query=text, note="the input is empty: paste an error message or a traceback"
            )
        if _binary(text):
            return MatchResult(
                query=text,
                note="the input looks like binary data, not an error message or a traceback",
            )
        pkg_filter, version = _package_filter(package, version)
        cleaned = clean_lines(text)
        segments = parse_lines(cleaned)
        cands: dict[int, _Candidate] = {}
        # A segment met again (a log repeating one traceback) is judged once, where it
        # first appears, with the rank of its last appearance: what judging every copy in
        # turn would leave, since a later copy's candidates outrank an earlier one's.
        last_seen = {_segment_key(s): order for order, s in enumerate(segments)}
        with self._lock, self._store.reading():  # one state of the store for the query
            if self._store.generation() != self._index.generation:  # written meanwhile
                self._index = Index(self._store, package=self._package)
                self._frames = {}  # their sites were the old index's
            for segment in segments:
                order = last_seen.pop(_segment_key(segment), None)
                if order is None:
                    continue  # judged already
                # a traceback cut before its message is weaker evidence than any message
                rank = order if segment.message.strip() else -2
                self._evaluate(segment, rank, pkg_filter, version, cands)
                for inner in (_class_shown(segment), _validation_error(segment)):
                    if inner is not None:  # the text read another way: judged beside it
                        self._evaluate(inner, rank, pkg_filter, version, cands)
            self._settle(cands)
            shown = _extension_shown(segments)
            if not any(c.credible for c in cands.values()) and shown is None:
                lines = "\n".join(line for line, _ in cleaned).strip()
                whole = embedded_segment(lines)
                if whole.message.strip() and all(whole.message != s.message for s in segments):
                    self._evaluate(
                        Segment(whole.exception, whole.message), -1, pkg_filter, version, cands
                    )
                    self._settle(cands)
            result = self._result(text, list(cands.values()), limit)
        if not result.matches and shown is not None:
            exception, distribution, module = shown
            note = not_indexed(exception, module, distribution, distribution in self._index.newest)
            return MatchResult(query=text, closest=result.closest, note=note)
        if not result.matches and not result.closest:
            if not any(s.message.strip() for s in segments):
                note = (
                    "the traceback holds no exception message, and none of its frames is "
                    "an indexed raise"
                )
            else:
                note = "no match: no indexed error message fits this text"
            return MatchResult(query=text, note=note)
        if not result.matches:
            return MatchResult(
                query=text,
                closest=result.closest,
                note="no match; the closest near misses are listed",
            )
        return result

    def _evaluate(
        self,
        segment: Segment,
        order: int,
        pkg_filter: str | None,
        version: str | None,
        cands: dict[int, _Candidate],
    ) -> None:
        index = self._index
        variants, elided = _variants(segment.message) if segment.message.strip() else ([], False)
        found: dict[int, _Candidate] = {}

        def candidate(site: Site) -> _Candidate | None:
            got = found.get(id(site))
            if got is not None:
                return got
            occs = site.occurrences
            if pkg_filter is not None or version is not None:
                occs = [
                    o
                    for o in occs
                    if (pkg_filter is None or site.package == pkg_filter)
                    and (version is None or o.version == version)
                ]
            if not occs:
                return None
            got = _Candidate(site=site, occ=occs[-1])
            found[id(site)] = got
            return got

        # Each template is aligned once, whether text or frames brought it here.
        aligned: dict[int, tuple[Alignment | None, str]] = {}

        def alignment(template: Template) -> tuple[Alignment | None, str]:
            got = aligned.get(id(template))
            if got is None:
                got = aligned[id(template)] = _best_alignment(template.lits, variants)
            return got

        # Text evidence, once per distinct template; sites only for templates that fit.
        if variants:
            seen: set[int] = set()
            for variant in variants:
                for template in index.text_candidates(variant):
                    if id(template) in seen:
                        continue
                    seen.add(id(template))
                    al, text = alignment(template)
                    if al is None:
                        continue
                    near = al.matched >= 8 and not _fits(al, template.lit_len, len(text))
                    for site in template.sites[:_NEAR_SITES] if near else template.sites:
                        c = candidate(site)
                        if c is not None:
                            c.alignment, c.text = al, text
        last = segment.frames[-1] if segment.frames else None
        framed: set[str] = set()  # the packages of the last frame's file
        if last is not None:
            for site, occ in self._frame_sites(last):
                framed.add(site.package)
                if version is not None and occ.version != version:
                    continue
                if occ.line == last.line:
                    level = 2
                elif last.function and (
                    occ.function == last.function or occ.function.endswith("." + last.function)
                ):
                    level = 1
                else:
                    continue
                c = candidate(site)
                if c is None:
                    continue
                c.fit = max(c.fit, frame_fit(last.path, occ.file))
                if level == 2 and (
                    c.frame < 2 or version_key(occ.version) > version_key(c.occ.version)
                ):
                    c.frame, c.occ = 2, occ
                elif level == 1 and c.frame < 1:
                    c.frame = 1
                if c.site.template is not None and variants and c.alignment is None:
                    c.alignment, c.text = alignment(c.site.template)
        # A site keeps its best candidate over all segments. The key starts with the
        # rank, so a higher rank wins unjudged; only a tie needs the rest of the key.
        for c in found.values():
            c.called_into = c.site.package in framed and is_native(c.occ.file)
            c.rank, c.segment, c.elided = order, segment, elided
            previous = cands.get(id(c.site))
            if previous is None or order > previous.rank:
                cands[id(c.site)] = c
            elif order == previous.rank:
                self._settle_one(previous)
                self._settle_one(c)
                if c.key > previous.key:
                    cands[id(c.site)] = c

    def _settle(self, cands: dict[int, _Candidate]) -> None:
        for c in cands.values():
            self._settle_one(c)

    def _settle_one(self, c: _Candidate) -> None:
        if not c.judged:
            assert c.segment is not None
            self._judge(c, c.segment, c.rank, c.elided)
            c.judged = True

    def _frame_sites(self, frame: Frame) -> list[tuple[Site, Occurrence]]:
        """The index's sites in the file of `frame` at its line or in a function of its
        name (a superset of those the frame points at), in the index's order."""
        table = self._frames.get(frame.path)
        if table is None:
            if len(self._frames) >= _FRAME_TABLES:
                self._frames.clear()
            pairs = self._index.frame_sites(frame.path)
            by_line: dict[int, list[int]] = {}
            by_name: dict[str, list[int]] = {}
            for i, (_, occ) in enumerate(pairs):
                by_line.setdefault(occ.line, []).append(i)
                by_name.setdefault(occ.function.rsplit(".", 1)[-1], []).append(i)
            table = self._frames[frame.path] = _FrameTable(pairs, by_line, by_name)
        picked = table.by_line.get(frame.line, [])
        if frame.function:
            named = table.by_name.get(frame.function.rsplit(".", 1)[-1], [])
            picked = sorted({*picked, *named}) if picked and named else picked or named
        return [table.pairs[i] for i in picked]

    def _judge(self, c: _Candidate, segment: Segment, order: int, elided: bool) -> None:
        template = c.site.template
        lit_len = template.lit_len if template is not None else 0
        al = c.alignment
        size = len(c.text)
        text_ok = al is not None and template is not None and _fits(al, lit_len, size)
        consistent = (
            not segment.message.strip()
            or lit_len < _MIN_SPECIFIC
            or text_ok
            or (al is not None and 2 * al.matched >= lit_len)
        )
        c.on_frame = c.frame == 2 and consistent
        c.text_ok = text_ok
        c.credible = text_ok or c.on_frame
        shown = extension_module(segment.exception)
        if shown is not None and not (
            (c.site.package == shown[0] and is_native(c.occ.file))
            or segment.exception in c.site.qualnames
        ):  # the class lives in an extension: only its native sites can have raised it
            c.credible, c.excluded = False, True
        c.shown = segment.exception
        exc_score = 0
        if segment.exception is not None:
            c.exception_agrees = short_exception(segment.exception) in c.site.exception_names
            exc_score = 1 if c.exception_agrees else -1
            if c.exception_agrees and segment.exception in c.site.qualnames:
                exc_score = 2  # the qualified class the user saw: this package's
        complete = al is not None and al.complete
        matched = al.matched if al is not None else 0
        # a whole template that needed its final period left out yields to one that fits
        # as written (datasets' remove_columns beside select_columns, which ends in ".")
        missing = lit_len - matched if complete else 0
        c.exact = bool(
            complete and al is not None and al.start == 0 and al.end == size and not elided
        )
        c.key = (
            order,
            c.on_frame,
            text_ok,
            c.called_into,
            c.frame,
            c.fit,
            complete,
            exc_score,
            -missing,
            matched,
            c.exact,
            -len(c.site.holes),
        )
        lit_cov = matched / lit_len if lit_len else 0.0
        msg_cov = (al.end - al.start) / size if al is not None and size else 0.0
        exc_f = 0.5 if c.exception_agrees is None else (1.0 if c.exception_agrees else 0.0)
        frame_f = (0.0, 0.5, 1.0)[c.frame]
        c.score = 0.55 * lit_cov + 0.25 * min(1.0, msg_cov) + 0.1 * exc_f + 0.1 * frame_f
        if c.on_frame and not text_ok:
            c.score = max(c.score, 0.5)

    def _result(self, text: str, cands: list[_Candidate], limit: int) -> MatchResult:
        credible = sorted((c for c in cands if c.credible), key=lambda c: c.key, reverse=True)
        credible = credible[: max(limit, 0)]
        groups: dict[tuple[Any, ...], int] = {}
        for c in credible:
            lits = c.site.template.lits if c.site.template is not None else None
            groups[(c.key, lits)] = groups.get((c.key, lits), 0) + 1
        matches: list[Match] = []
        ceiling = 1.0
        for c in credible:
            lits = c.site.template.lits if c.site.template is not None else None
            ambiguous = groups[(c.key, lits)] > 1
            ceiling = min(ceiling, c.score)
            matches.append(self._to_match(c, ceiling, ambiguous=ambiguous))
        # near misses the text brought first, by how much of it fits; those only a
        # frame of the traceback points at after them
        near = sorted(
            (c for c in cands if not c.credible and not c.excluded and _near(c)),
            key=lambda c: (_text_near(c), _matched(c), c.frame, c.score),
            reverse=True,
        )[:MAX_CLOSEST]
        closest = tuple(self._to_match(c, c.score, ambiguous=False) for c in near)
        return MatchResult(query=text, matches=tuple(matches), closest=closest)

    def _to_match(self, c: _Candidate, score: float, *, ambiguous: bool) -> Match:
        notes, label = _explain(c)
        values: dict[str, str] = {}
        al = c.alignment
        if al is not None:
            for holes, gap in zip(c.site.holes, al.gaps, strict=False):
                if gap is None:
                    continue
                key = holes[0] if len(holes) == 1 else "".join("{" + h + "}" for h in holes)
                values[key] = c.text[gap[0] : gap[1]]
        newest = self._index.newest.get(c.site.package)
        inferred = c.occ.version if c.frame == 2 and c.occ.version != newest else None
        return Match(
            id=c.site.id,
            package=c.site.package_display,
            version=c.occ.version,
            file=c.occ.file,
            line=c.occ.line,
            function=c.occ.function,
            exception=c.site.exception,
            template=c.site.text,
            score=round(score, 3),
            exact=c.exact,
            values=values,
            ambiguous=ambiguous,
            version_inferred=inferred,
            exception_agrees=c.exception_agrees,
            note="; ".join(notes) or None,
            label=label,
        )


def _extension_shown(segments: list[Segment]) -> tuple[str, str, str] | None:
    """(class, distribution, module) when the last exception the text shows is a class
    of a compiled extension module (see _native.extension_module)."""
    for segment in reversed(segments):
        if segment.exception is not None:
            found = extension_module(segment.exception)
            return None if found is None else (segment.exception, *found)
    return None


def _class_shown(segment: Segment) -> Segment | None:
    """`segment` read as `Class: message` when its text starts with a capitalised dotted
    name and a colon that the paste parser did not take for a class (a name without an
    Error-like suffix, as `requests.exceptions.InvalidSchema`); else None."""
    if segment.exception is not None or not segment.message.strip():
        return None
    first, newline, rest = segment.message.lstrip().partition("\n")
    head = exception_head(first.strip(), strict=False)
    if head is None or not head[1].strip() or not head[0].rsplit(".", 1)[-1][:1].isupper():
        return None
    return Segment(head[0], head[1] + newline + rest, segment.frames)


_PYDANTIC_KINDS = {"Value error, ": "ValueError", "Assertion failed, ": "AssertionError"}


def _validation_error(segment: Segment) -> Segment | None:
    """The first error a pydantic ValidationError wraps (`1 validation error for Model`,
    a field line, then `  Value error, MESSAGE [type=value_error, ...]`), as the
    exception the validator raised; else None."""
    text = segment.message
    if "validation error" not in text or " for " not in text:
        return None
    lines = text.split("\n")
    for i, line in enumerate(lines):
        body = line.strip()
        cut = body.rfind(" [type=")
        if cut > 0 and not body.startswith(tuple(_PYDANTIC_KINDS)):
            # pydantic v2's own error: its message, the class the traceback shows
            return Segment(segment.exception, body[:cut], segment.frames)
        for head, exception in _PYDANTIC_KINDS.items():
            if not body.startswith(head):
                continue
            taken = [body[len(head) :]]
            for more in lines[i + 1 :]:
                if "[type=" in taken[-1]:
                    break
                taken.append(more)
            inner = "\n".join(taken)
            cut = inner.rfind(" [type=")
            inner = inner[:cut] if cut >= 0 else inner
            return Segment(exception, inner, segment.frames) if inner.strip() else None
    return None


def _fits(al: Alignment, lit_len: int, size: int) -> bool:
    """Whether the text alone makes a template credible: a whole template with enough
    literal text, or a cut fragment that its literals mostly explain."""
    if al.complete:
        return lit_len >= _MIN_SPECIFIC or (lit_len >= 3 and 2 * al.matched >= size)
    return al.matched >= _MIN_FRAGMENT and 100 * al.matched >= 35 * size


def _matched(c: _Candidate) -> int:
    return c.alignment.matched if c.alignment is not None else 0


def _text_near(c: _Candidate) -> bool:
    """Whether the text itself nearly fits (not a frame alone)."""
    return _matched(c) >= 8


def _near(c: _Candidate) -> bool:
    return c.frame > 0 or (c.alignment is not None and c.alignment.matched >= 8)


def _explain(c: _Candidate) -> tuple[list[str], str | None]:
    """Return the notes on a match and, for a near miss, why it is only close."""
    notes: list[str] = []
    loc = f"{c.occ.file}:{c.occ.line}"
    if c.exception_agrees is False:
        notes.append(
            f"the text shows {c.shown}, this site raises {c.site.exception}"
            " (libraries change classes between versions)"
        )
    if c.on_frame:
        notes.append(f"the traceback's last frame is this raise ({loc})")
    elif c.called_into and c.credible:
        notes.append("raised in the compiled extension the traceback's last frame calls into")
    elif c.frame == 1 and c.credible:
        notes.append("raised in the function of the traceback's last frame")
    if c.text_ok and c.alignment is not None and not c.alignment.complete:
        notes.append("the text is only part of this message")
    elif c.text_ok and c.alignment is not None:
        added = _added_elsewhere(c.text, c.alignment)
        if added:
            notes.append(
                f"this raise writes the message; {added} came from elsewhere "
                "(code that rewrote the message after the raise, or the program's output)"
            )
    if c.credible:
        return notes, None
    if c.frame == 2:
        return (
            notes,
            f"the traceback's last frame is this raise ({loc}), but the message "
            "does not fit its template",
        )
    if c.frame == 1:
        return (
            notes,
            "raised in the function of the traceback's last frame, but the "
            "message does not fit its template",
        )
    matched = c.alignment.matched if c.alignment is not None else 0
    lit_len = c.site.template.lit_len if c.site.template is not None else 0
    return notes, f"only part of the template fits ({matched} of {lit_len} literal characters)"


def _added_elsewhere(text: str, al: Alignment) -> str:
    """The text around a whole template that no part of it wrote (a request id put in
    front, a server's answer appended), as `before: "..."` / `after: "..."`; or ""."""
    said = []
    for where, part in (("before it", text[: al.start]), ("after it", text[al.end :])):
        part = part.strip()
        if len(part.strip(".,:;()[]-— ")) >= 3:
            short = part if len(part) <= 60 else part[:57] + "..."
            said.append(f'the text {where} ("{short}")')
    return " and ".join(said)


def _best_alignment(lits: tuple[str, ...], variants: list[str]) -> tuple[Alignment | None, str]:
    best: Alignment | None = None
    best_text = variants[0]
    for variant in variants:
        al = align(lits, variant)
        if al is not None and (
            best is None or (al.complete, al.matched) > (best.complete, best.matched)
        ):
            best, best_text = al, variant
            if al.complete:
                break
    return best, best_text


def _package_filter(package: str | None, version: str | None) -> tuple[str | None, str | None]:
    if package is None:
        return None, version
    name, sep, ver = package.partition("==")
    return canonicalize_name(name.strip()), (ver.strip() if sep else version)


def too_large(size: int, *, more: bool = False) -> InputTooLarge:
    """The error for text of `size` bytes (`more`: of more than that, when the rest was
    not read) over MAX_INPUT_BYTES."""
    told = f"more than {size:,}" if more else f"{size:,}"
    return InputTooLarge(
        f"the text to match is {told} bytes, over the {MAX_INPUT_BYTES // 1024} KiB cap;"
        " paste only the traceback's last exception or the message line"
    )
