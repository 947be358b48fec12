# Fuzzing the extractor: generated modules (hypothesmith, from Python's grammar and from
# libcst's node types; hypothesis alone when hypothesmith is not installed) and real
# files mutated (bytes flipped, truncated, lines deleted, duplicated or swapped, odd
# bytes put in) go through parse_file and through the extract stage of a small tree.
# Each must end with sites or a recorded skip, never an exception.
#
# The short run is part of `make test` (tests/test_hostile_sources.py); the long one is
# `make fuzz` (python -m tests.fuzz_extract [--examples N] [--mutants N]), which prints a
# table of what it tried and found.
from __future__ import annotations

import argparse
import random
import sys
import tempfile
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from errdex.extract import scan
from errdex.extract.cache import NoCache
from errdex.extract.parse import Skip, parse_file
from errdex.extract.pipeline import extract
from errdex.model import Snapshot

ODD_BYTES = (
    b"\r",
    b"\r\n",
    b"\x00",
    b"\xff",
    b"\t",
    b"\x0c",
    b"\\",
    b"(",
    b":",
    b'"""',
    b"\xef\xbb\xbf",
)
OUR_BUG = "errdex could not analyse it"


class Finding(AssertionError):
    """An input that ended in an exception (or a skip that says errdex has a bug)."""


def check_source(data: bytes, path: str = "pkg/mod.py") -> str:
    """Run `data` through parse_file; return "sites" or "skip". Raises Finding otherwise."""
    try:
        parse_file(data, path, path.removesuffix(".py").replace("/", "."))
    except Skip:
        return "skip"
    except Exception as exc:
        raise Finding(f"parse_file raised {type(exc).__name__}: {exc}\n{_show(data)}") from exc
    return "sites"


def check_tree(data: bytes, root: Path) -> str:
    """Index a small tree holding `data` as one module (extract stage, cross-file linking
    included); return "sites" or "skip". Raises Finding when it raises or reports our bug."""
    pkg = root / "pkg"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("from pkg.mod import *\n")
    (pkg / "mod.py").write_bytes(data)
    (pkg / "use.py").write_text("from pkg import mod\n\ndef g(x):\n    return mod.f(x)\n")
    snapshot = Snapshot(package="pkg", version="1", root=root, source=str(root))
    cache = NoCache()
    try:
        result = extract(snapshot, scan(snapshot, cache), cache, workers=1)
    except Exception as exc:
        raise Finding(f"extract raised {type(exc).__name__}: {exc}\n{_show(data)}") from exc
    reasons = {skip.path: skip.reason for skip in result.skipped}
    if any(OUR_BUG in reason for reason in reasons.values()):
        raise Finding(f"a skip says errdex has a bug: {reasons}\n{_show(data)}")
    return "skip" if "pkg/mod.py" in reasons else "sites"


def _show(data: bytes) -> str:
    return f"input ({len(data)} bytes): {data[:400]!r}{'...' if len(data) > 400 else ''}"


# -- mutated real files ---------------------------------------------------------------------


def mutants(data: bytes, *, seed: int, count: int) -> Iterator[bytes]:
    """`count` mutations of `data`, the same for the same seed."""
    rng = random.Random(seed)
    for _ in range(count):
        yield _mutate(data, rng)


def _mutate(data: bytes, rng: random.Random) -> bytes:
    lines = data.splitlines(keepends=True) or [b""]
    kind = rng.randrange(7)
    if kind == 0 and data:  # flip bytes
        out = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
        return bytes(out)
    if kind == 1:  # truncate
        return data[: rng.randrange(len(data) + 1)]
    if kind == 2:  # delete lines
        for _ in range(rng.randint(1, max(1, len(lines) // 10))):
            if len(lines) > 1:
                del lines[rng.randrange(len(lines))]
        return b"".join(lines)
    if kind == 3:  # duplicate a run of lines
        start = rng.randrange(len(lines))
        run = lines[start : start + rng.randint(1, 20)]
        lines[start:start] = run
        return b"".join(lines)
    if kind == 4:  # swap two lines
        a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[a], lines[b] = lines[b], lines[a]
        return b"".join(lines)
    if kind == 5:  # line endings made CR or CRLF, in part
        ending = rng.choice([b"\r", b"\r\n"])
        return b"".join(
            line[:-1] + ending if line.endswith(b"\n") and rng.random() < 0.5 else line
            for line in lines
        )
    at = rng.randrange(len(data) + 1)  # an odd byte somewhere
    return data[:at] + rng.choice(ODD_BYTES) + data[at:]


# -- generated modules ----------------------------------------------------------------------


EXCEPTIONS = ["ValueError", "KeyError", "Err", "errors.Bad"]
OPERATORS = ["<", ">=", "==", "is", "is not", "in", "not in"]
OPERANDS = ["0", "None", "''", "n", "(1, 2)"]
NAMES = ["x", "self.mode", "cfg.size", "n", "value", "os.environ['K']"]
CLASS = "class Err(Exception):\n    pass\nclass C:\n    mode: str = 'a'\n    def check(self, n):\n"


def _fallback_modules() -> st.SearchStrategy[str]:
    """Modules built with hypothesis alone from pieces errdex reads (raise, assert, if,
    try, f-strings, classes, functions), nested at random."""
    name = st.sampled_from(NAMES)
    cond = st.builds(
        lambda a, op, b: f"{a} {op} {b}",
        name,
        st.sampled_from(OPERATORS),
        st.sampled_from(OPERANDS),
    )
    text = st.text(
        alphabet=st.characters(codec="utf-8", exclude_characters="\r\n\"'\\{}"), max_size=20
    )
    message = st.one_of(
        text.map(repr),
        st.builds(lambda t, n: f"f'{t}{{{n}!r:>4}}'", text, name),
        st.builds(lambda t, n: f"'{t} %s' % {n}", text, name),
        st.builds(lambda t, n: f"'{t} {{}}'.format({n})", text, name),
    )
    leaf = st.one_of(
        st.builds(lambda e, m: f"raise {e}({m})", st.sampled_from(EXCEPTIONS), message),
        st.builds(lambda c, m: f"assert {c}, {m}", cond, message),
        st.just("raise"),
        st.just("pass"),
        st.just("return None"),
    )

    def blocks(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        body = st.lists(children, min_size=1, max_size=4).map(
            lambda items: "\n".join(_indent(item) for item in items)
        )
        handler = "except (KeyError, OSError) as exc:"
        return st.one_of(
            st.builds(lambda c, b: f"if {c}:\n{b}", cond, body),
            st.builds(lambda c, b, e: f"if not ({c}):\n{b}\nelse:\n{e}", cond, body, body),
            st.builds(lambda b, h: f"try:\n{b}\n{handler}\n{h}", body, body),
            st.builds(lambda b: f"def f(self, x: int = 0, *a, **k):\n{b}", body),
            st.builds(lambda b: CLASS + _indent(b), body),
            st.builds(lambda c, b: f"while {c}:\n{b}", cond, body),
            st.builds(lambda b: f"with open(x) as fh:\n{b}", body),
        )

    return st.recursive(leaf, blocks, max_leaves=12)


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def module_strategy() -> tuple[st.SearchStrategy[str], str]:
    """Generated module sources, and where they come from."""
    try:
        import hypothesmith
    except ImportError:
        return _fallback_modules(), "hypothesis (hypothesmith is not installed)"
    return (
        st.one_of(hypothesmith.from_grammar(), hypothesmith.from_node(), _fallback_modules()),
        "hypothesmith (grammar and libcst nodes) and hypothesis",
    )


def generated_property(max_examples: int, tally: Counter[str] | None = None) -> Callable[[], None]:
    """A hypothesis test over generated modules; `tally` counts sites / skips."""
    strategy, _ = module_strategy()

    @settings(
        max_examples=max_examples,
        deadline=None,
        database=None,  # the tests write nothing outside tmp
        suppress_health_check=list(HealthCheck),
        derandomize=tally is None,  # the short run in `make test` is the same every time
    )
    @given(strategy)
    def prop(source: str) -> None:
        data = source.encode("utf-8", "surrogatepass")
        outcome = check_source(data)
        with tempfile.TemporaryDirectory() as tmp:
            assert check_tree(data, Path(tmp)) == outcome
        if tally is not None:
            tally[outcome] += 1

    return prop


# -- the long run ---------------------------------------------------------------------------


def seeds() -> list[Path]:
    """Real files to mutate: errdex's own source and the running Python's stdlib."""
    here = Path(__file__).resolve().parent.parent
    own = sorted((here / "errdex").rglob("*.py"))
    stdlib = Path(random.__file__).parent
    picked = sorted(stdlib.glob("*.py"))[:60]
    return own + picked


def long_run(examples: int, per_seed: int) -> int:
    """Fuzz for a while and print what was tried and found; exit status 1 on a finding."""
    rows: list[tuple[str, int, Counter[str], list[str]]] = []
    tally: Counter[str] = Counter()
    findings: list[str] = []
    try:
        generated_property(examples, tally)()
    except Finding as exc:
        findings.append(str(exc))
    except Exception:
        findings.append(traceback.format_exc())
    _, source = module_strategy()
    rows.append((f"generated: {source}", sum(tally.values()), tally, findings))
    tally, findings, tried = Counter(), [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for number, seed in enumerate(seeds()):
            for mutant in mutants(seed.read_bytes(), seed=number, count=per_seed):
                tried += 1
                try:
                    outcome = check_source(mutant)
                    if tried % 10 == 0:  # the tree is slower: one in ten
                        check_tree(mutant, Path(tmp) / str(tried))
                    tally[outcome] += 1
                except Finding as exc:
                    findings.append(f"{seed}: {exc}")
    rows.append(("mutated real files", tried, tally, findings))
    print(f"{'inputs':<60} {'tried':>7} {'sites':>7} {'skips':>7} {'findings':>8}")
    for label, count, seen, found in rows:
        print(f"{label:<60} {count:>7} {seen['sites']:>7} {seen['skip']:>7} {len(found):>8}")
    for label, _, _, found in rows:
        for text in found[:10]:
            print(f"\n--- {label}\n{text}")
    return 1 if any(found for *_, found in rows) else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--examples", type=int, default=2_000, help="generated modules")
    parser.add_argument("--mutants", type=int, default=40, help="mutations of each real file")
    args = parser.parse_args(argv)
    return long_run(args.examples, args.mutants)


if __name__ == "__main__":
    sys.exit(main())
