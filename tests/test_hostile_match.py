# The matcher against hostile input (issue 11): a package of long message literals
# (many templates of a few KB, three of 300 KB, periodic ones, one raised through a
# helper from two dozen call sites) indexed into a real SQLite file, and text crafted
# against it. Time must grow linearly with the size of the text up to the 256 KiB cap,
# and no text, random or adversarial, may make the matcher raise anything but
# InputTooLarge over the cap, or answer with a malformed result. tests/fuzz_match.py
# runs the same properties far longer.
from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from errdex.align import _overlap, align
from errdex.errors import InputTooLarge
from errdex.index import index_source
from errdex.match import MAX_INPUT_BYTES, Matcher, MatchResult, _dewrap
from errdex.store import Store, open_store
from tests.conftest import write_tree

KIB = 1024
SIZES = (16 * KIB, 64 * KIB, 256 * KIB)
HUGE = 88_000  # repetitions of a three-character unit in a huge literal: past 256 KiB
STARTS = 6  # templates whose first literal is one huge run, each with its own end
STOPS = 4  # templates whose last literal is one huge run, each with its own start
CALLERS = 24  # call sites of the helper whose message is huge

_WORDS = (
    "tensor shape mismatch expected got rank device dtype float16 cuda cpu config value "
    "must be positive integer between the and of for model layer attention head size "
    "batch sequence length token cache block quantization kernel scheduler worker"
)
_VOCAB = _WORDS.split(" ")


@dataclass(frozen=True)
class Hostile:
    store: Store
    matcher: Matcher
    lits: tuple[str, ...]  # the literals of the few-KB templates
    package: str
    version: str


def _prose(rng: random.Random, size: int) -> str:
    words: list[str] = []
    total = 0
    while total < size:
        words.append(rng.choice(_VOCAB))
        total += len(words[-1]) + 1
    return " ".join(words)


def hostile_files() -> tuple[dict[str, str], tuple[str, ...]]:
    """The hostile package's files and the literals of its few-KB templates."""
    rng = random.Random(11)
    lits: list[str] = []
    long_py = []
    for i in range(40):
        a, b, c = _prose(rng, 2000), _prose(rng, 1500), _prose(rng, 1000)
        lits += [a, b, c]
        long_py.append(
            f"def f{i}(x, y):\n    raise ValueError(f{a + ' {x} ' + b + ' {y} ' + c!r})\n"
        )
    for j, unit in enumerate(["a" * 3000, "a " * 1500, "ab" * 1500, "x a" * 1000, ". " * 1500]):
        lits.append(unit)
        long_py.append(f"def r{j}(x):\n    raise ValueError(f{unit + '{x}' + unit[::-1]!r})\n")
    raising = "def {}(x):\n    raise ValueError(f{!r})\n".format
    # the first literal is huge: the text can start inside it (a suffix search)
    huge_py = [
        raising(f"start{k}", "ab " * HUGE + f"{{x}} ends message {k}") for k in range(STARTS)
    ]
    # the last literal is huge: the text can stop inside it (a prefix search)
    huge_py += [
        raising(f"stop{k}", f"message {k} starts here: {{x}}" + " cd" * HUGE) for k in range(STOPS)
    ]
    huge_py.append(raising("fail", "{x}" + " ef" * HUGE + " end"))
    # two dozen sites of one template in one function: a frame there points at them all
    calls = "".join(f"    if v == {i}:\n        fail(v)\n" for i in range(CALLERS))
    many_py = [f"from hostile.huge import fail\n\n\ndef check(v):\n{calls}"]
    # three hundred sites of five templates, one function each
    many_py += [
        f"def g{i}(v):\n    raise ValueError(f'value {{v}} is out of range for setting"
        f" number {i % 5} of this hostile module')\n"
        for i in range(300)
    ]
    files = {
        "hostile/__init__.py": "",
        "hostile/long.py": "\n\n".join(long_py),
        "hostile/huge.py": "\n\n".join(huge_py),
        "hostile/many.py": "\n\n".join(many_py),
    }
    return files, tuple(lits)


def hostile_store(root: Path) -> Hostile:
    files, lits = hostile_files()
    write_tree(root / "hostile", files)
    store = open_store(root / "errdex.sqlite")
    index_source(str(root / "hostile"), store, use_cache=False)
    [snapshot] = store.snapshots()
    return Hostile(store, Matcher(store), lits, snapshot.package, snapshot.version)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hostile]:
    h = hostile_store(tmp_path_factory.mktemp("hostile"))
    yield h
    h.store.close()


# -- the adversarial inputs: each makes a text of at most `size` UTF-8 bytes -----------


def _fill(unit: str, size: int) -> str:
    """`unit` repeated to `size` UTF-8 bytes (cut on a character)."""
    size = max(0, size)
    per = len(unit.encode())
    text = unit * (size // per + 1)
    cut = text.encode()[:size].decode("utf-8", "ignore")
    return cut


def _where(line: int, func: str = "check", path: str = "hostile/many.py") -> str:
    return f'  File "/venv/lib/python3.12/site-packages/{path}", line {line}, in {func}\n'


Builder = Callable[[tuple[str, ...], int], str]


def _fragments(lits: tuple[str, ...], size: int, sep: str) -> str:
    rng = random.Random(size)
    out: list[str] = []
    total = 0
    while total < size:
        lit = rng.choice(lits)
        start = rng.randrange(len(lit))
        out.append(lit[start : start + rng.randint(40, 400)])
        total += len(out[-1]) + len(sep)
    return sep.join(out)[:size]


def _chained(lits: tuple[str, ...], size: int) -> str:
    out: list[str] = []
    total = 0
    i = 0
    while total < size - 400:
        i += 1
        out.append(
            "Traceback (most recent call last):\n"
            + _where(i % 50 + 2, f"g{i % 300}")
            + f"    raise ValueError()\nValueError: value {i} is out of range for setting"
            f" number {i % 5}\n\nDuring handling of the above exception, another exception"
            " occurred:\n\n"
        )
        total += len(out[-1])
    return "".join(out)


def _deep(lits: tuple[str, ...], size: int) -> str:
    # a deep traceback, its last frame in the helper's callers
    frames = _fill(_where(7, "step", "other/deep.py") + "    step()\n", size - 300)
    frames = frames[: frames.rfind("\n") + 1]
    tail = "ValueError: 5 ef ef ef ef Xf"
    return "Traceback (most recent call last):\n" + frames + _where(6) + "    fail(v)\n" + tail


def _wrap(text: str, width: int = 79) -> str:
    """`text` broken every `width` characters, mid-word or not, as a terminal does."""
    return "\n".join(text[i : i + width] for i in range(0, len(text), width))


INPUTS: dict[str, Builder] = {
    # pieces of the literals, on one line and one per `ValueError: ` line
    "fragments": lambda lits, n: "ValueError: " + _fragments(lits, n - 20, " "),
    "fragment_lines": lambda lits, n: "ValueError: " + _fragments(lits, n - 20, "\nValueError: "),
    # one long line: a letter, and a literal without its spaces
    "long_line": lambda lits, n: "ValueError: " + "a" * (n - 20),
    "long_word": lambda lits, n: "ValueError: " + _fill(lits[0].replace(" ", ""), n - 20),
    # a message, then line after line of one letter: each joins the last (de-wrapping)
    "x_then_a_lines": lambda lits, n: "ValueError: x\n" + _fill("a\n", n - 20),
    "cr_only": lambda lits, n: "ValueError: x\r" + _fill("a\r", n - 20),
    # starts inside the huge first literals, then breaks from them: every offset of them
    # a candidate; wrapped, so that the text is tried joined too
    "huge_suffix": lambda lits, n: (
        "ValueError: " + _wrap("ab " * 33 + "Z " + _fill("ab ", n * 78 // 80 - 200))
    ),
    # stops inside the huge last literal, but for the second-to-last character
    "huge_prefix": lambda lits, n: (
        "ValueError: message 2 starts here: 5" + _fill(" cd", n - 100) + " Xd"
    ),
    # the last frame is in the function of the helper's two dozen call sites; the message
    # shares no word with their template
    "frame_sites": lambda lits, n: (
        "Traceback (most recent call last):\n"
        + _where(6)
        + "    fail(v)\nValueError: 5"
        + _fill(" e", n - 200)
    ),
    "deep_traceback": _deep,
    "chained": _chained,
    "repeated_traceback": lambda lits, n: _fill(
        "Traceback (most recent call last):\n"
        + _where(3)
        + "    fail(v)\nValueError: 3 ef ef ef ef ef ef Xf\n",
        n,
    ),
    # every word of every template
    "many_candidates": lambda lits, n: (
        "ValueError: "
        + _fill(" ".join(sorted({w for lit in lits for w in lit.split()})) + " ", n - 20)
    ),
    "unicode": lambda lits, n: (
        "ValueError: " + _fill("é ß İ ﬁ 😀 \u200f\u0301 ａ ǅ tensor ", n - 20)
    ),
    "nul": lambda lits, n: _fill(lits[1][:300] + "\x00", n),
    "wrapped": lambda lits, n: (
        "ValueError: " + "\n".join(_fill(lits[0], n)[i : i + 80] for i in range(0, n - 400, 81))
    ),
    "log_prefixed": lambda lits, n: _fill(
        "ERROR 11-29 10:00:00 [f.py:1] (APIServer pid=12) " + lits[3][:200] + "\n", n
    ),
    "boxed_ansi": lambda lits, n: _fill(
        "│ \x1b[31mValueError\x1b[0m: " + lits[4][:150] + " │\n", n
    ),
}


def _make(name: str, lits: tuple[str, ...], size: int) -> str:
    text = INPUTS[name](lits, size)
    assert len(text.encode("utf-8", "surrogatepass")) <= size
    return text


# -- time grows linearly with the text ----------------------------------------------------

# Times are this process's CPU time (time.process_time), which other processes on a
# busy machine do not inflate. A budget per size that any linear matcher meets on a slow
# machine: fixed costs, plus 4 s per 256 KiB (the matcher takes well under 1 s at the cap).
_FIXED = 0.5
_PER_BYTE = 4.0 / (256 * KIB)
# Past the fixed costs, 16 times the text may take at most 3 times 16 times as long, and
# 4 times the text 3 times 4 times as long. Quadratic work gives 256 and 16.
_SLACK = 3.0
_NOISE = 0.3  # seconds any measurement may be off by


def _best_of(matcher: Matcher, text: str, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.process_time()
        matcher.match(text)
        best = min(best, time.process_time() - started)
        if best > _FIXED + _PER_BYTE * len(text.encode("utf-8", "surrogatepass")):
            break  # over budget already: no use repeating it
    return best


def measure(matcher: Matcher, name: str, lits: tuple[str, ...]) -> dict[int, float]:
    """The best time of each size (of three runs; two at the largest), smallest first,
    stopping at the first size over its budget."""
    matcher.match(_make(name, lits, SIZES[0]))  # the index's caches, filled
    times: dict[int, float] = {}
    for size in SIZES:
        times[size] = _best_of(matcher, _make(name, lits, size), runs=2 if size == SIZES[-1] else 3)
        if times[size] > _FIXED + _PER_BYTE * size:
            break
    return times


def linear_failures(times: dict[int, float]) -> list[str]:
    """Why `times` (size -> seconds) are not those of a linear matcher; [] if they are."""
    out = [
        f"{t:.2f} s at {size // KIB} KiB, over the linear budget of "
        f"{_FIXED + _PER_BYTE * size:.2f} s"
        for size, t in times.items()
        if t > _FIXED + _PER_BYTE * size
    ]
    if out:
        return out
    small, mid, big = (times[s] for s in SIZES)
    if big > _SLACK * (SIZES[2] / SIZES[0]) * small + _NOISE:
        out.append(f"16 times the text took {big / small:.0f} times as long")
    if big > _SLACK * (SIZES[2] / SIZES[1]) * mid + _NOISE:
        out.append(f"4 times the text took {big / mid:.0f} times as long")
    return out


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_time_grows_linearly_with_the_text(hostile: Hostile, name: str) -> None:
    times = measure(hostile.matcher, name, hostile.lits)
    if linear_failures(times):  # measured again once: the machine may have been busy
        times = measure(hostile.matcher, name, hostile.lits)
    shown = ", ".join(f"{size // KIB} KiB: {t * 1000:.0f} ms" for size, t in times.items())
    assert not linear_failures(times), (name, shown, linear_failures(times))


def test_the_hostile_package_is_indexed_whole(hostile: Hostile) -> None:
    """The inputs above aim at templates that must be there, and found."""
    found = hostile.matcher.match("ValueError: " + "ab " * 2000 + "7 ends message 4")
    assert found.matches and found.matches[0].function == "start4"
    assert found.matches[0].values == {"x": "7"}
    found = hostile.matcher.match(
        "Traceback (most recent call last):\n" + _where(6) + "    fail(v)\n"
        "ValueError: 5" + " ef" * 3000
    )
    assert found.matches[0].function == "check" and found.matches[0].line == 6
    assert sum(m.function == "check" for m in found.matches) == 10  # the default limit
    both = hostile.matcher.match("ValueError: " + hostile.lits[0] + " 1 " + hostile.lits[1][:50])
    assert both.matches[0].function == "f0"


# -- the parts that were quadratic, against their plain definitions ---------------------


def _overlap_plain(a: str, b: str) -> int:
    for k in range(min(len(a), len(b)), 0, -1):
        if a.endswith(b[:k]):
            return k
    return 0


def _dewrap_plain(text: str) -> str:
    lines = text.split("\n")
    out = [lines[0]]
    for line in lines[1:]:
        prev = out[-1]
        if prev and line and not prev[-1].isspace() and not line[0].isspace():
            out[-1] = prev + line
        else:
            out.append(line)
    return "\n".join(out)


@st.composite
def _periodic(draw: st.DrawFn) -> str:
    """A unit repeated (periodic text has the most candidate overlaps), maybe cut at
    either end and with a character or two changed anywhere."""
    unit = draw(st.sampled_from(["a", "ab", "ab ", "aab", "abaab", "x a"]))
    text = (unit * draw(st.integers(0, 150)))[draw(st.integers(0, 5)) :]
    for _ in range(draw(st.integers(0, 2))):
        if text:
            at = draw(st.integers(0, len(text) - 1))
            text = text[:at] + draw(st.sampled_from("abZ ")) + text[at + 1 :]
    return text + draw(st.sampled_from(["", "b", "Z", "a", " "]))


_overlap_text = st.one_of(_periodic(), st.text(alphabet="ab Z", max_size=80))


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(a=_overlap_text, b=_overlap_text)
def test_overlap_is_the_longest_suffix_that_is_a_prefix(a: str, b: str) -> None:
    assert _overlap(a, b) == _overlap_plain(a, b)
    assert _overlap(a, a + b) == _overlap_plain(a, a + b)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(text=st.text(alphabet="ab \t\n\u00a0\u2003", max_size=60))
def test_dewrap_joins_what_it_joined(text: str) -> None:
    assert _dewrap(text) == _dewrap_plain(text)


def _seconds(f: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        f()
        best = min(best, time.process_time() - started)
    return best


@pytest.mark.parametrize(
    "part",
    [
        # a literal of one run, a text that breaks from it (the suffix search)
        lambda n: _overlap("ab " * (n // 3), ("ab " * 33 + "Z") * (n // 100)),
        lambda n: align(("ab " * (n // 3), " ends"), ("ab " * 33 + "Z") * (n // 100)),
        # a text that stops inside the literal but for its last character (the prefix search)
        lambda n: align(("x: ", " cd" * (n // 3)), "x: 5" + " cd" * (n // 3 - 2) + " Xd"),
        lambda n: _dewrap("a\n" * (n // 2)),
    ],
    ids=["overlap", "align-suffix", "align-prefix", "dewrap"],
)
def test_the_parts_that_were_quadratic_are_linear(part: Callable[[int], object]) -> None:
    small, big = 64 * KIB, 256 * KIB
    times = [(_seconds(lambda: part(small)), _seconds(lambda: part(big))) for _ in range(2)]
    # 4 times the text: at most 8 times as long (quadratic work takes 16)
    assert any(t_big <= 8 * t_small + 0.05 for t_small, t_big in times), times


def test_overlaps_at_the_cap() -> None:
    n = 256 * KIB
    assert _overlap("ab " * (n // 3), ("ab " * 33 + "Z") * (n // 100)) == 99  # to the first Z
    al = align(("x: ", " cd" * (n // 3)), "x: 5" + " cd" * (n // 3 - 2) + " Xd")
    assert (
        al is not None and al.matched == 3 and al.gaps == ((3, len("x: 5") + 3 * (n // 3 - 2) + 3),)
    )


# -- fuzzing: never an exception, always a well-formed result --------------------------


def check_result(hostile: Hostile, text: str | bytes, result: MatchResult, limit: int) -> None:
    """What every answer of the matcher must be, whatever the text."""
    assert isinstance(result, MatchResult)
    assert len(result.matches) <= limit
    assert len(result.closest) <= 5
    if not result.matches and not result.closest:
        assert result.note
    ids = [m.id for m in result.matches]
    assert len(ids) == len(set(ids))
    assert not set(ids) & {m.id for m in result.closest}
    scores = [m.score for m in result.matches]
    assert scores == sorted(scores, reverse=True)
    for m in (*result.matches, *result.closest):
        assert 0.0 <= m.score <= 1.0
        assert (m.package, m.version) == (hostile.package, hostile.version)
        assert m.file.startswith("hostile/") and m.line > 0
        assert all(isinstance(v, str) for v in m.values.values())
        if m.exact:
            assert m in result.matches
    for m in result.closest:
        assert m.label


_pieces = st.sampled_from(
    [
        "Traceback (most recent call last):\n",
        _where(6),
        _where(9, "g3"),
        '  File "x.py", line 1, in <module>\n',
        "    fail(v)\n",
        "    ^^^^^^^\n",
        "ValueError: ",
        "KeyError: 'x'\n",
        "During handling of the above exception, another exception occurred:\n\n",
        "The above exception was the direct cause of the following exception:\n",
        "ERROR 11-29 10:00:00 [f.py:1] ",
        "(APIServer pid=12) ",
        "[rank3]: ",
        "> ",
        "│ ",
        " │\n",
        "╭─── Traceback ───╮\n",
        "+-+---------------- 1 ----------------\n",
        "\x1b[31m",
        "\x1b]8;;http://x\x07",
        "Exception has occurred: ValueError\n",
        "value 7 is out of range for setting number 2 of this hostile module",
        " ends message 3",
        "message 2 starts here: ",
        "ab ab ab ab ab ",
        " ef ef ef",
        "...",
        "…",
        "'",
        '"',
        "\r",
        "\r\n",
        "\n",
        "\x00",
        "\t",
        "\u00a0",
        "\u200f",
        "İ",
        "\ud800",
    ]
)


def adversarial(lits: tuple[str, ...]) -> st.SearchStrategy[str]:
    """Texts made of what the parser and the aligner look for, cut anywhere."""

    def fragment(draw: st.DrawFn) -> str:
        lit = draw(st.sampled_from(lits))
        start = draw(st.integers(0, len(lit)))
        return lit[start : start + draw(st.integers(0, 300))]

    @st.composite
    def text(draw: st.DrawFn) -> str:
        parts = draw(
            st.lists(
                st.one_of(_pieces, st.builds(str, st.integers(-5, 10**6)), st.text(max_size=20)),
                max_size=40,
            )
        )
        for _ in range(draw(st.integers(0, 3))):
            parts.insert(draw(st.integers(0, len(parts))), fragment(draw))
        times = draw(st.sampled_from([1, 1, 1, 2, 50, 500]))
        return "".join(parts) * times

    return text()


def fuzz_once(hostile: Hostile, text: str | bytes, limit: int = 10) -> None:
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
    try:
        result = hostile.matcher.match(text, limit=limit)
    except InputTooLarge:
        assert size > MAX_INPUT_BYTES
        return
    check_result(hostile, text, result, limit)


def adversarial_case(hostile: Hostile, data: st.DataObject) -> None:
    text = data.draw(adversarial(hostile.lits))
    fuzz_once(hostile, text, limit=data.draw(st.sampled_from([1, 10, 1000])))


random_texts = st.one_of(
    st.text(),
    st.binary(),
    st.text(alphabet=st.characters(exclude_categories=[])),  # lone surrogates too
    st.text(alphabet=st.characters(max_codepoint=127)),
)

# Short runs here, the same examples every time; tests/fuzz_match.py runs far more.
SHORT = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SHORT
@given(data=st.data())
def test_adversarial_text_gives_a_well_formed_answer(hostile: Hostile, data: st.DataObject) -> None:
    adversarial_case(hostile, data)


@SHORT
@given(text=random_texts)
def test_random_text_gives_a_well_formed_answer(hostile: Hostile, text: str | bytes) -> None:
    fuzz_once(hostile, text)


def test_lone_surrogates_are_read_as_replacement_characters(hostile: Hostile) -> None:
    """A str can hold what UTF-8 cannot (JSON's "\\ud800" makes one)."""
    text = "[rank0]: ValueError: value 7\ud800 is out of range for setting number 2"
    result = hostile.matcher.match(text)
    assert result.matches[0].function == "g2"
    assert result.matches[0].values == {"v": "7\ufffd"}
    assert hostile.matcher.match("\ud83d\ude00 \udfff").query == "\U0001f600 \ufffd"


def test_the_cap_is_on_bytes_and_only_the_cap_raises(hostile: Hostile) -> None:
    for name in ("x_then_a_lines", "unicode", "huge_suffix"):
        text = _make(name, hostile.lits, MAX_INPUT_BYTES)
        fuzz_once(hostile, text)
        fuzz_once(hostile, text.encode())
    with pytest.raises(InputTooLarge):
        hostile.matcher.match("a" * (MAX_INPUT_BYTES + 1))
    with pytest.raises(InputTooLarge):
        hostile.matcher.match(b"a" * (MAX_INPUT_BYTES + 1))
    with pytest.raises(InputTooLarge):
        hostile.matcher.match("é" * (MAX_INPUT_BYTES // 2 + 1))
    check_result(hostile, "", hostile.matcher.match("é" * (MAX_INPUT_BYTES // 2)), 10)
