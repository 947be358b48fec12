# The codebase's own tests that trigger an error: the expectations extract read from
# the test files (errdex.extract.tests), fitted to the message templates of the sites.
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from string import Formatter

from errdex import expr
from errdex.explain.callgraph import MAX_DEPTH, CallGraph
from errdex.extract.files import module_name
from errdex.model import ErrorSite, Expectation, Hole, TestFile, TestRef

MAX_TESTS = 3  # per site, those with the surest evidence first:
_BY_TEXT, _BY_REACH, _BY_NAME = 0, 1, 2  # the message checked; the class, and the calls
# reach one site of it; the class, and the test's name points to one
_MAX_REACH = 200  # callers followed per site function, at most
_CONSTRUCTORS = ("__init__", "__post_init__", "__new__")
_CLASS_DEPTH = 1  # callers between a class-only test's call and the site, at most
_TYPED_DEPTH = 8  # the same, for a call of a function or method the test names exactly
_GENERIC = frozenset({"Exception", "BaseException"})
_AMBIGUOUS = 3  # a pattern fitting more sites than this needs the test to name one
_TOO_VAGUE = 25  # a pattern fitting more sites than this says nothing
_WORD = re.compile(r"[a-z_]{4,}")
_CONSTANT = re.compile(r"[A-Z][A-Z0-9]*_[A-Z0-9_]+")  # MAX_RANGE, not a class or `X`
_HOLE = "\x00"
_MIN_LITERAL = 6  # letters a pattern must pin down to say anything
_MIN_FITTED = 8  # characters of a pattern the template's literal text must account for
_LOOSE_LETTERS, _LOOSE_FITTED = 4, 5  # the same, for a site the test's block calls into
_MIN_OUTPUT_FIT = 12  # of an output line, characters the template's own text must give
_OUTFITS = 2  # times the characters of a line any other template gives, at least
_STANDS_ALONE = 24  # characters of a pattern that pin a site down without the test naming it
_PHRASE = 16  # characters of a shorter pattern, all template text, that one template holds
_RAREST = 3  # words of a pattern whose sites are tried
_MAX_SOURCES = 8  # locals followed back from a raised one to the constant it comes from
_GETTEXT = frozenset({"_", "gettext", "ngettext", "gettext_lazy", "ngettext_lazy", "lazy_gettext"})
_MAX_VARIANTS = 4  # translated templates of one message, at most
# A test named for what it checks (`test_invalid_timeout`) picks, among the sites of the
# class it expects, the one whose function and message share most words with its name.
_NAME_WORDS = 2  # words of the name one site must share, and no other as many
_NAME_PICKS = 3  # the same, for the name alone to pick among the sites a pattern fits
_STEM = 5  # letters a word is cut to, so that "redirect" and "redirects" agree
_IDENT_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_NAME_STOP = frozenset(
    {"test", "tests", "the", "and", "for", "with", "when", "not", "raise", "raises", "error"}
    | {"errors", "exception", "fail", "fails", "should", "can", "cannot", "does", "that"}
    | {"this", "from", "sync", "async", "works", "check", "checks"}
)


def literal_fit(piece: str, skeleton: str) -> int:
    """How many characters of `piece` the template's literal text (holes as \\x00) can
    account for, at best, in some message the template yields; -1 when none contains it.
    A piece that only fits inside a hole scores 0: the hole swallowed it."""
    if piece in skeleton:
        return len(piece)
    if _HOLE not in skeleton or not piece:
        return -1
    n = len(skeleton)
    states: dict[int, int] = {}  # position in the template -> literal characters so far
    for start in (piece[0], _HOLE):
        j = skeleton.find(start)
        while j >= 0:
            states[j] = 0
            j = skeleton.find(start, j + 1)
    for char in piece:
        nxt: dict[int, int] = {}
        for j, count in states.items():
            while j < n:
                at = skeleton[j]
                if at == _HOLE:
                    if nxt.get(j, -1) < count:
                        nxt[j] = count  # the hole takes the character
                    j += 1  # or the hole is empty here
                    continue
                if at == char and nxt.get(j + 1, -1) < count + 1:
                    nxt[j + 1] = count + 1
                break
        if not nxt:
            return -1
        states = nxt
    return max(states.values())


def _fits(pieces: tuple[str, ...], skeleton: str, least: int = 8) -> int:
    """Every piece is part of a message the template yields, and the template's own text,
    not its holes, accounts for enough of them (a hole may not swallow the pattern): the
    characters it accounts for, or 0."""
    literal = total = 0
    for piece in pieces:
        if not piece:
            continue
        count = literal_fit(piece, skeleton)
        if count < 0:
            return 0
        literal += count
        total += len(piece)
    return literal if literal >= least and literal * 3 >= total else 0


def _skeletons(site: ErrorSite) -> tuple[str, ...]:
    """The message template with holes as \x00; and, for a hole that translates a literal
    template (`ngettext("Option {name!r} requires an argument.", ...).format(...)`), the
    message with each of those templates in its place."""
    if site.message is None:
        return ("",)
    parts = site.message.parts
    main = "".join(_HOLE if isinstance(p, Hole) else p.text for p in parts)
    variants: list[str] = []
    for k, part in enumerate(parts):
        if isinstance(part, Hole):
            before = "".join(_HOLE if isinstance(p, Hole) else p.text for p in parts[:k])
            after = "".join(_HOLE if isinstance(p, Hole) else p.text for p in parts[k + 1 :])
            variants.extend(before + t + after for t in _translated(part))
    return (main, *variants[:_MAX_VARIANTS])


def _translated(hole: Hole) -> list[str]:
    """The templates a gettext call in `hole` translates, holes as \x00, read from its
    expression tree; none for any other expression."""
    node = hole.tree
    func = node.func if isinstance(node, expr.Call) else None
    if isinstance(func, expr.Attribute) and func.attr == "format":  # ngettext(...).format()
        node = func.value
    if not (isinstance(node, expr.Call) and isinstance(node.func, expr.Name)):
        return []
    if node.func.id not in _GETTEXT:
        return []
    out = []
    for arg in node.args:
        if isinstance(arg, expr.Constant) and isinstance(arg.value, str):
            try:
                fields = list(Formatter().parse(arg.value))
            except ValueError:
                continue
            out.append(
                "".join(text + (_HOLE if name is not None else "") for text, name, _, _ in fields)
            )
    return out


class Reach:
    """For each site, the short names of the functions (and classes, for constructors)
    that reach its function through the static call graph: what a test must call."""

    def __init__(self, graph: CallGraph, targets: Sequence[str | None]):
        self.graph = graph
        self.targets = targets
        self._names: dict[tuple[str, int], frozenset[str]] = {}
        # each depth's names by site, filled as asked: `reaches` asks of every site of a
        # class (ValueError: thousands) for each test that expects it
        self._by_site: dict[int, list[frozenset[str] | None]] = {}

    def reaches(self, hits: Iterable[int], calls: frozenset[str], depth: int) -> list[int]:
        """The sites among `hits` whose names up to `depth` callers deep meet `calls`."""
        known = self._by_site.get(depth)
        if known is None:
            known = self._by_site[depth] = [None] * len(self.targets)
        out = []
        for i in hits:
            found = known[i]
            if found is None:
                found = known[i] = self.names(i, depth)
            if not found.isdisjoint(calls):
                out.append(i)
        return out

    def names(self, i: int, depth: int = MAX_DEPTH) -> frozenset[str]:
        """Up to `depth` callers deep (0: the site's own function alone)."""
        target = self.targets[i]
        if target is None:
            return frozenset()
        key = (target, depth)
        if key not in self._names:
            found: set[str] = set()
            seen = {target}
            layer = [target]
            for _ in range(depth):
                nxt: list[str] = []
                for qualified in layer:
                    found.update(self._called_as(qualified))
                    for caller in self.graph.reaching(qualified):
                        if caller not in seen and len(seen) < _MAX_REACH:
                            seen.add(caller)
                            nxt.append(caller)
                layer = nxt
            for qualified in layer:
                found.update(self._called_as(qualified))
            found.discard("<module>")
            self._names[key] = frozenset(found)
        return self._names[key]

    def _called_as(self, qualified: str) -> set[str]:
        """How a test names a call of `qualified`: its short name, and for a method,
        `Class.method` for its class and each class that inherits it (a test that made the
        object knows its class)."""
        short = _short_name(qualified)
        names = {short}
        owner, _, method = qualified.rpartition(".")
        if owner in self.graph.classes and method not in _CONSTRUCTORS:
            for cls in (owner, *self.graph.subclasses(owner)):
                names.add(f"{cls.rsplit('.', 1)[-1]}.{method}")
        else:  # a function or a class, called through its module or the package
            module = owner.rpartition(".")[0] if method in _CONSTRUCTORS else owner
            if module in self.graph.modules:
                names.add(f"{module.split('.', 1)[0]}.{short}")
                names.add(f"{module.rsplit('.', 1)[-1]}.{short}")
        return names


def _short_name(qualified: str) -> str:
    """`m.Class.method` -> "method"; a constructor -> "Class": the name a caller writes."""
    parts = qualified.split(".")
    if parts[-1] in _CONSTRUCTORS and len(parts) > 1:
        return parts[-2]
    return parts[-1]


class TestIndex:
    """Finds, for each site, the tests whose expectations fit it."""

    def __init__(
        self, sites: Sequence[ErrorSite], reach: Reach | None = None, written: Sequence[str] = ()
    ):
        self.reach = reach
        self.by_class: dict[str, list[int]] = defaultdict(list)
        self.sites = sites
        self.skeletons = [_skeletons(s) for s in sites]
        self.words: dict[str, list[int]] = defaultdict(list)
        for i, skeletons in enumerate(self.skeletons):
            for word in {w for text in skeletons for w in _WORD.findall(text.lower())}:
                self.words[word].append(i)
        self.names = [_exception_names(s) for s in sites]
        self._site_words: list[frozenset[str]] | None = None  # made on first need
        self._by_word: dict[str, list[int]] | None = None  # the sites of each of those words
        self._scores: dict[tuple[tuple[str, ...], frozenset[str], bool], dict[int, int]] = {}
        # the top-level packages of the codebase: where its own exception classes live
        self.own = frozenset(module_name(s.location.file).split(".")[0] for s in sites) - {""}
        # each site's exception as its raise writes it (extract's Linker.written): the
        # class a site raises may be one it only stands for (`raise exc` is a
        # BaseException, `raise self.error_class(...)` the class annotated)
        self.written = list(written) or [s.exception.qualname for s in sites]
        # a raise whose class we cannot name (`raise exc`, `raise self.error_class(...)`)
        self.dynamic = any(
            s.kind != "reraise" and _unnamed(w) for s, w in zip(sites, self.written, strict=True)
        )
        for i, names in enumerate(self.names):
            for name in names:
                self.by_class[name].append(i)
        # `raise self._undefined_exception(...)`, the attribute annotated as holding a
        # class: the sites that may raise each class of that family, by short name
        self.held: dict[str, list[int]] = defaultdict(list)
        if reach is not None:
            for i, site in enumerate(sites):
                for name in _held_classes(site, self.written[i], reach.targets[i], reach.graph):
                    self.held[name].append(i)

    def reached(
        self,
        expectation: Expectation,
        hits: list[int],
        depth: int = MAX_DEPTH,
        calls: frozenset[str] | None = None,
    ) -> list[int]:
        """The hits whose function the code under the raises block calls (or `calls`),
        directly or through the call graph (`depth` callers deep at most)."""
        calls = expectation.calls if calls is None else calls
        if self.reach is None or not calls:
            return []
        return self.reach.reaches(hits, calls, depth)

    def by_class_alone(
        self, expectation: Expectation, names: frozenset[str]
    ) -> tuple[list[int], int]:
        """`pytest.raises(Cls)` with nothing checked: the one site of that class the
        block's calls reach, else the one the test's name points to (`names`: what the
        test file mentions), or none; with the rank of that evidence (_BY_REACH or
        _BY_NAME)."""
        if not expectation.calls or expectation.exceptions & _GENERIC:
            return [], _BY_REACH
        candidates = sorted({i for e in expectation.exceptions for i in self.by_class.get(e, ())})
        if not candidates:
            return self.held_alone(expectation), _BY_REACH
        # The static graph misses calls, so only a site the block calls (nearly) directly
        # is trusted to be the one: for a class of the codebase, in the function called
        # or one it calls (any the graph follows from a method of an object the test
        # made: `Client.get`, not any `get`); for another (a builtin, a library's),
        # raised by code the graph does not see as well, in the very function called.
        # For a class of another, a `with`/`for` on an object of unknown class says
        # nothing (a builtin's protocol raises it as well), and what lies further down
        # is looked for through any method of that name, not only the class's.
        own = all(self._own_class(i) for i in candidates)
        calls = expectation.calls
        typed = any("." in call for call in calls)
        if own:
            depth, anywhere = (_TYPED_DEPTH if typed else _CLASS_DEPTH), calls
        else:
            depth = 0
            anywhere = frozenset(c for c in calls if "." in c) if typed else _loose(calls)
            calls = frozenset(c for c in calls if not c.startswith("__"))
        reached = self.reached(expectation, candidates, depth, calls)
        # the one raise of the class in the very method the test names by its class
        direct = self.reached(expectation, candidates, 0, frozenset(c for c in calls if "." in c))
        if not self.one_raise(direct):  # of those, the one that raises the very class
            direct = self.exact(expectation, direct)
        # ... when the test's name says a word of it (a raise further down the method, of
        # the same class, is what a test named for something else is after)
        is_direct = self.one_raise(direct) and self.name_shares(expectation, direct[0])
        if is_direct:
            reached = direct
        # else no other site of the class may lie anywhere further down the calls, as far
        # as the graph can tell: not when the site's function calls what no name says
        if reached and self.opaque(reached[0]):
            reached, is_direct = [], False
        if self.one_raise(reached) and (
            is_direct
            or self.reached(expectation, candidates, max(depth, MAX_DEPTH), anywhere) == reached
        ):
            # unless the test's name points to another site: the graph does not see
            # every call (a method of an object made elsewhere), the author's name does
            named = self.named_by_test(expectation, candidates, names)
            if named and not is_direct and not set(named) & set(reached):
                return named, _BY_NAME
            return reached, _BY_REACH
        # else a class of the codebase that one site alone raises, when every raise of
        # the codebase names its class
        if not reached and own and not self.dynamic and self.one_raise(candidates):
            return candidates, _BY_REACH
        return self.named_by_test(expectation, candidates, names), _BY_NAME

    def helper_raise(self, hits: list[int]) -> list[int]:
        """Of hits that are one raise and helper-call sites that call the function it is
        in with its message (`return self._raise_for_unsupported(archs)`), the raise: the
        statement the test's error comes from, whichever call led there; else none."""
        if self.reach is None:
            return []
        raises = [i for i in hits if self.sites[i].kind != "helper"]
        if len(raises) != 1:
            return []
        target = self.reach.targets[raises[0]]
        callers = set(self.reach.graph.reaching(target)) if target is not None else set()
        message = self.sites[raises[0]].message
        helpers = [i for i in hits if i != raises[0]]
        if all(
            self.sites[i].kind == "helper"
            and self.reach.targets[i] in callers
            and self.sites[i].message == message
            for i in helpers
        ):
            return raises
        return []

    def opaque(self, i: int) -> bool:
        """Whether the site's function calls what no name says (`handlers[kind](v)`)."""
        if self.reach is None:
            return False
        target = self.reach.targets[i]
        return target is not None and target in self.reach.graph.opaque

    def name_shares(self, expectation: Expectation, i: int) -> bool:
        """Whether the test's name and the site's function or message share a word."""
        return bool(name_words(expectation.test.name.rsplit(".", 1)[-1]) & self._words()[i])

    def exact(self, expectation: Expectation, hits: list[int]) -> list[int]:
        """The hits that raise the very class expected, not a subclass of it."""
        return [i for i in hits if self.sites[i].exception.name in expectation.exceptions]

    def held_alone(self, expectation: Expectation) -> list[int]:
        """For a class no `raise` of the codebase names: the one site whose raised class
        is an attribute annotated to hold that class's family (`exc: t.Type[Base]`)."""
        held = sorted({i for e in expectation.exceptions for i in self.held.get(e, ())})
        return held if held and self.one_raise(held) else []

    def one_raise(self, hits: list[int]) -> bool:
        """The hits are one `raise` statement: one site, or the messages one raise
        picks between (`raise HTTPError(a if client else b)`), all on its line."""
        if not hits:
            return False
        first = self.sites[hits[0]].location
        return all(
            (self.sites[i].location.file, self.sites[i].location.line) == (first.file, first.line)
            for i in hits
        )

    def unchecked_by_class(self, expectation: Expectation, names: frozenset[str]) -> list[int]:
        """For a test whose checked text fits no template at all: the one site its class
        and calls point to (as by_class_alone), when that site's template has no text of
        its own (`raise HTTPStatusError(message)`), so the text cannot tell against it."""
        if not any(
            _all_holes(self.sites[i])
            for e in expectation.exceptions
            for i in self.by_class.get(e, ())
        ):
            return []  # no site of the class whose message is made elsewhere
        hits, rank = self.by_class_alone(expectation, names)
        if rank != _BY_REACH or not all(_all_holes(self.sites[i]) for i in hits):
            return []
        return hits

    def named_by_test(
        self,
        expectation: Expectation,
        candidates: list[int],
        names: frozenset[str] | None = None,
        least: int = _NAME_WORDS,
    ) -> list[int]:
        """The one candidate whose function and message share most words with the test's
        name (at least `least`; of several as good, the one the block's calls reach), when
        the test file names its function or class (`names`: what the file mentions; None:
        not asked): what the author says the test is about."""
        wanted = name_words(expectation.test.name.rsplit(".", 1)[-1])
        words = self._words()
        # a candidate that shares no word can be none of the best: `least` is one or more
        sharing = self._sharing(wanted)
        shared = {i: len(wanted & words[i]) for i in candidates if i in sharing}
        top = max(shared.values(), default=0)
        best = [i for i, count in shared.items() if count == top]
        if len(best) > 1:  # told apart by the calls reaching one, else by the very class
            best = self.reached(expectation, best) or best
            if len(best) > 1:
                best = self.exact(expectation, best)
        if top < least or len(best) != 1:
            return []
        if names is not None and not _named_in(self.sites[best[0]], names, constants=True):
            return []
        return best

    def _sharing(self, wanted: frozenset[str]) -> set[int]:
        """The sites whose words (see _words) include one of `wanted`."""
        if self._by_word is None:
            self._by_word = defaultdict(list)
            for i, words in enumerate(self._words()):
                for word in words:
                    self._by_word[word].append(i)
        return {i for word in wanted for i in self._by_word.get(word, ())}

    def _words(self) -> list[frozenset[str]]:
        """Each site's words (its message's and its function's), made once for all: a
        test's name is weighed against every site of its class, thousands of them."""
        if self._site_words is None:
            self._site_words = [
                name_words(s.message.literal_text if s.message is not None else "")
                | name_words(s.location.function)
                for s in self.sites
            ]
        return self._site_words

    def scores(
        self, pieces: tuple[str, ...], expected: frozenset[str], every: bool = False
    ) -> dict[int, int]:
        """The sites one alternative of a pattern fits, loosely (a short pattern too),
        each with the characters of it their template's own text accounts for; `every`:
        all sites tried when the pattern has no word long enough to look them up by."""
        key = (pieces, expected, every)
        if key not in self._scores:
            self._scores[key] = self._score(pieces, expected, every)
        return self._scores[key]

    def _score(
        self, pieces: tuple[str, ...], expected: frozenset[str], every: bool
    ) -> dict[int, int]:
        letters = sum(len(re.sub(r"[^A-Za-z]", "", p)) for p in pieces)
        if letters < _LOOSE_LETTERS:
            return {}
        words = {w for p in pieces for w in _WORD.findall(p.lower()) if w in self.words}
        # a word of the pattern may be a hole's value: look at the few rarest
        rarest = sorted(words, key=lambda w: len(self.words[w]))[:_RAREST]
        tried = {i for w in rarest for i in self.words[w]}
        if every and not words:
            tried = set(range(len(self.sites)))
        found: dict[int, int] = {}
        for i in sorted(tried):
            if self._raises(i, expected):
                score = max(_fits(pieces, text, _LOOSE_FITTED) for text in self.skeletons[i])
                if score:
                    found[i] = score
        return found

    def _raises(self, i: int, expected: frozenset[str]) -> bool:
        if not expected:  # printed output: any class
            return True
        return bool(expected & self.names[i]) or bool(expected & {"Exception", "BaseException"})

    def _own_class(self, i: int) -> bool:
        """The site raises a class the codebase defines."""
        return self.sites[i].exception.qualname.split(".")[0] in self.own


def name_words(text: str) -> frozenset[str]:
    """The words of an identifier or a message (`test_too_many_redirects`,
    `Client._send_handling_redirects`), lower case and cut to _STEM letters, without the
    words any test name may use."""
    words = (w.lower() for w in _IDENT_WORD.findall(text))
    return frozenset(w[:_STEM] for w in words if len(w) >= 3 and w not in _NAME_STOP)


def _held_classes(site: ErrorSite, written: str, target: str | None, graph: CallGraph) -> set[str]:
    """For `raise self.attr(...)` in a method (`written`, the site's exception as the
    raise writes it): the short names of the class the attribute is annotated to hold
    and of its subclasses; for `raise mapped(...)`, a local taken from a module constant
    annotated as a mapping of classes (`for k, mapped in EXC_MAP.items()`), those of the
    class its values hold; else none."""
    if target is None:
        return set()
    if written.startswith("self.") and written.count(".") == 1:
        held = graph.member_class(target.rsplit(".", 1)[0], written[5:])
    elif "." not in written:
        held = _mapped_class(site, written, target, graph)
    else:
        return set()
    if held is None:
        return set()
    return {c.rsplit(".", 1)[-1] for c in (held, *graph.subclasses(held))}


def _mapped_class(site: ErrorSite, written: str, target: str, graph: CallGraph) -> str | None:
    """The class held by the values of the module constant that the raised local is
    computed from, through the locals the site reads (`mapped_exc = to_exc`, `to_exc`
    an item of `EXC_MAP.items()`), or None."""
    inputs = {i.name: i for i in site.inputs}
    todo = [written]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen or len(seen) >= _MAX_SOURCES:
            continue
        seen.add(name)
        held = graph.mapped_class(target, name)
        if held is not None:
            return held
        read = inputs.get(name)
        if read is not None and read.kind == "local":
            todo.extend(read.sources)
    return None


def _all_holes(site: ErrorSite) -> bool:
    """The message is made elsewhere: no template, or one without literal text."""
    return site.message is None or not site.message.literal_text.strip()


def _unnamed(written: str) -> bool:
    """The raise, as written, names a class known only at run time: a variable, an
    attribute."""
    return "." not in written or written.startswith(("self.", "cls."))


def _exception_names(site: ErrorSite) -> frozenset[str]:
    # as written and as resolved: `raise RequestsSSLError(...)` raises SSLError
    names = {site.exception.name.rsplit(".", 1)[-1], site.exception.qualname.rsplit(".", 1)[-1]}
    names.update(b.rsplit(".", 1)[-1] for b in site.exception.bases)
    if names & {"OSError", "IOError", "EnvironmentError"}:
        names.update(("OSError", "IOError", "EnvironmentError"))  # one class, three names
    if site.kind == "assert":
        names.add("AssertionError")
    return frozenset(names)


def find_tests(
    tests: Sequence[TestFile],
    sites: Sequence[ErrorSite],
    graph: CallGraph | None = None,
    targets: Sequence[str | None] = (),
    written: Sequence[str] = (),
) -> dict[str, tuple[TestRef, ...]]:
    """For each site id, the tests (as extract read them) that trigger it. `targets`
    are the sites' module-qualified functions, for the call graph; `written`, their
    exceptions as the raises write them (Extraction.written)."""
    reach = None if graph is None else Reach(graph, targets)
    index = TestIndex(sites, reach, written)
    found: dict[int, list[tuple[int, TestRef]]] = defaultdict(list)
    for test_file in tests:
        for expectation in test_file.expectations:
            if not expectation.alternatives:  # the class alone: one site or none
                hits, rank = index.by_class_alone(expectation, test_file.names)
                for i in hits:
                    found[i].append((rank, expectation.test))
                continue
            fitted = False
            for pieces in expectation.alternatives:
                one = _one_site(index, expectation, pieces, test_file.names)
                if one is not None:
                    found[one].append((_BY_TEXT, expectation.test))
                fitted = fitted or bool(index.scores(pieces, expectation.exceptions))
            if not fitted and expectation.exceptions:
                # text no template holds: it was made where a hole's value comes from
                for i in index.unchecked_by_class(expectation, test_file.names):
                    found[i].append((_BY_REACH, expectation.test))
    out: dict[str, tuple[TestRef, ...]] = {}
    for i, refs in found.items():
        refs.sort(key=lambda r: (r[0], r[1].file, r[1].line))  # the surest first
        unique: dict[tuple[str, str], TestRef] = {}
        for _, ref in refs:  # a test that checks the error twice is listed once
            unique.setdefault((ref.file, ref.name), ref)
        out[sites[i].id] = tuple(list(unique.values())[:MAX_TESTS])
    return out


def _one_site(
    index: TestIndex,
    expectation: Expectation,
    pieces: tuple[str, ...],
    names: frozenset[str],
    labelled: bool = False,
) -> int | None:
    """The one site an alternative of a pattern points to, or None: the best fit among
    the sites the raises block calls into; else, among the close fits, the best one if
    the pattern is long enough to stand alone (or the file names the site's function).
    Two sites fitting equally well are told apart by the test's name alone, else neither
    is listed. `labelled`: the printed text after its label, every site tried."""
    scored = index.scores(pieces, expectation.exceptions, every=labelled)
    close = {i: score for i, score in scored.items() if score >= _MIN_FITTED}
    if sum(len(re.sub(r"[^A-Za-z]", "", p)) for p in pieces) < _MIN_LITERAL:
        close = {}  # too few letters to stand without the block reaching the site
    if not expectation.exceptions:  # printed output: a close fit, and nothing else fits
        return _printed_site(index, expectation, pieces, names, scored, close)
    # the text is the evidence here; the block's calls only narrow the sites it fits,
    # through any method of the names called
    reached = index.reached(expectation, sorted(scored), calls=_loose(expectation.calls))
    pool: dict[int, int] = {}
    if reached:  # the block calls into these: the file need not name them
        pool = {i: scored[i] for i in reached}
    elif not close or len(close) > _TOO_VAGUE:
        pass
    elif len(close) > _AMBIGUOUS or sum(map(len, pieces)) < _STANDS_ALONE:
        pool = {i: score for i, score in close.items() if _named_in(index.sites[i], names)}
        if not pool:  # a phrase of one template alone, word for word
            pool = _verbatim(pieces, close)
        if not pool and len(scored) == 1 and _phrase_of_a_class(pieces, expectation):
            pool = close  # a phrase that of all templates fits this one alone
    else:
        pool = close
    if not pool and len(scored) <= _TOO_VAGUE:
        # a pattern too short to pin a site down: of the sites it fits, the one the
        # test's name points to (`test_argument_unbounded_nargs_cant_have_default`)
        named = index.named_by_test(expectation, sorted(scored), least=_NAME_PICKS)
        return named[0] if named else None
    top = max(pool.values(), default=0)
    best = [i for i, score in pool.items() if score == top]
    if len(best) > 1:  # a helper's raise and the calls of it that pass its message on
        best = index.helper_raise(best) or best
    if len(best) > 1:  # the same text in several places: the test's name may tell which
        best = index.named_by_test(expectation, best, least=1)
    return best[0] if len(best) == 1 else None


def _printed_site(
    index: TestIndex,
    expectation: Expectation,
    pieces: tuple[str, ...],
    names: frozenset[str],
    scored: dict[int, int],
    close: dict[int, int],
) -> int | None:
    """The site printed output points to: the one close fit, when nothing else fits;
    else, for a line that fits nothing, the one its text after a label points to."""
    pool = [i for i, score in close.items() if score >= _MIN_OUTPUT_FIT]
    if len(pool) == 1 and all(
        score * _OUTFITS <= scored[pool[0]] for i, score in scored.items() if i != pool[0]
    ):
        return pool[0]
    label, colon, rest = pieces[0].partition(": ") if len(pieces) == 1 else ("", "", "")
    if not scored and colon and label and len(rest) >= _MIN_OUTPUT_FIT:
        # what the error class prints before its message: "Invalid value for '-n': "
        return _one_site(index, expectation, (rest,), names, labelled=True)
    return None


def _phrase_of_a_class(pieces: tuple[str, ...], expectation: Expectation) -> bool:
    """Words (not one name: a parameter's value checked in the message, `FLASH_ATTN`)
    checked with a class more telling than Exception."""
    return any(" " in p.strip() for p in pieces) and not expectation.exceptions & _GENERIC


def _loose(calls: frozenset[str]) -> frozenset[str]:
    """The calls with each method called on an object of a known class also by its bare
    name (`Client.get` and `get`)."""
    return calls | {call.rsplit(".", 1)[-1] for call in calls}


def _verbatim(pieces: tuple[str, ...], close: dict[int, int]) -> dict[int, int]:
    """The one close fit whose template's own text holds the whole pattern, when it is
    long enough to be a phrase: the others fit only with a hole taking part of it."""
    length = sum(map(len, pieces))
    whole = {i: score for i, score in close.items() if score == length}
    return whole if length >= _PHRASE and len(whole) == 1 else {}


def _named_in(site: ErrorSite, names: frozenset[str], *, constants: bool = False) -> bool:
    """The test file mentions the raising function, or its class, by name; `constants`:
    or a constant of the module the condition or message reads (`MAX_RANGE`, imported
    to exceed it)."""
    parts = site.location.function.split(".")
    if any(p in names for p in parts if p != "<module>" and not p.startswith("__")):
        return True
    return constants and any(
        i.kind == "constant" and _CONSTANT.fullmatch(i.name) and i.name in names
        for i in site.inputs
    )
