# How errors change between versions. First three versions of a small package written
# here ("ledger"), each indexed from its directory into a real SQLite file, whose every
# change is known by construction: added, removed, reworded, retyped, moved (to another
# file, and the whole package into a src/ layout). Then, marked `network`, two real
# releases of requests whose changes were checked by hand in the two sdists (2.31.0 ->
# 2.32.3 also moved the code into a src/ layout), and idna and six from PyPI.
from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from packaging.version import Version

from errdex.codec import change_to_json, record_to_json
from errdex.history import diff_records, lineage, render_markdown, render_text, summary
from errdex.index import index_snapshot, index_source
from errdex.model import Change, Record
from errdex.sources import resolve
from errdex.store import SqliteStore, Store, open_store
from tests.conftest import TEST_CACHE, require_pypi, write_tree

network = pytest.mark.network


# -- ledger 1.0, 1.1 and 1.2 ------------------------------------------------------------

ACCOUNTS_1_0 = """\
class Account:
    def __init__(self, balance=0):
        self.balance = balance
        self.frozen = False

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError(f"deposit must be positive, got {amount}")
        self.balance += amount

    def withdraw(self, amount):
        if amount > self.balance:
            raise ValueError(
                f"cannot withdraw {amount} from this account right now: "
                f"the balance is only {self.balance}"
            )
        self.balance -= amount

    def close(self):
        if self.balance:
            raise RuntimeError("close the account only once its balance is zero")

    def freeze(self):
        if self.frozen:
            raise RuntimeError
        self.frozen = True

    def rename(self, name):
        if len(name) > 40:
            raise ValueError("names are at most 40 characters")
        self.name = name


def parse_currency(code):
    if len(code) != 3:
        raise ValueError("currency codes have three letters")
    return code.upper()


def legacy_import(path):
    raise NotImplementedError("legacy import was removed; export from the old app as CSV")
"""
# 1.1: a docstring and an import above everything (every line moves down), transfer()
# added, withdraw's message reworded, close() raises its own class, rename's message
# rewritten beyond recognition, parse_currency moved to money.py, legacy_import gone.
ACCOUNTS_1_1 = '''\
"""Accounts: balances that only go down by what they hold."""

from ledger.errors import AccountError


class Account:
    def __init__(self, balance=0):
        self.balance = balance
        self.frozen = False

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError(f"deposit must be positive, got {amount}")
        self.balance += amount

    def withdraw(self, amount):
        if amount > self.balance:
            raise ValueError(
                f"cannot withdraw {amount} from this account right now: "
                f"the balance is just {self.balance}"
            )
        self.balance -= amount

    def transfer(self, other, amount):
        if other is self:
            raise ValueError("cannot transfer money to the same account")
        self.withdraw(amount)
        other.deposit(amount)

    def close(self):
        if self.balance:
            raise AccountError("close the account only once its balance is zero")

    def freeze(self):
        if self.frozen:
            raise RuntimeError
        self.frozen = True

    def rename(self, name):
        if len(name) > 40:
            raise ValueError(f"{name!r} does not fit on a statement")
        self.name = name
'''
MONEY = """\
def parse_currency(code):
    if len(code) != 3:
        raise ValueError("currency codes have three letters")
    return code.upper()
"""
ERRORS = '''\
class AccountError(Exception):
    """An account cannot do what was asked."""
'''
# report.export's message-less raise leaves for export.py in 1.1: nothing but its place
# and guards tells a message-less raise, so elsewhere it is a new error, not a move.
REPORT_1_0 = """\
def render(rows):
    if not rows:
        raise LookupError("nothing to report for this period")


def export(rows):
    if rows is None:
        raise TypeError
"""
REPORT_1_1 = """\
def render(rows):
    if not rows:
        raise LookupError("nothing to report for this period")
"""
EXPORT = """\
def export(rows):
    if rows is None:
        raise TypeError
"""


def ledger_files(version: str) -> dict[str, str]:
    """ledger 1.0, 1.1, or 1.2: 1.1 again, moved into a src/ layout."""
    files = {"ledger/__init__.py": ""}
    if version == "1.0":
        files |= {"ledger/accounts.py": ACCOUNTS_1_0, "ledger/report.py": REPORT_1_0}
    else:
        files |= {
            "ledger/accounts.py": ACCOUNTS_1_1,
            "ledger/money.py": MONEY,
            "ledger/errors.py": ERRORS,
            "ledger/report.py": REPORT_1_1,
            "ledger/export.py": EXPORT,
        }
    if version == "1.2":
        files = {f"src/{path}": code for path, code in files.items()}
    return {"pyproject.toml": f'[project]\nname = "ledger"\nversion = "{version}"\n', **files}


def line_of(version: str, path: str, needle: str) -> int:
    """The line of the `raise` statement whose text holds `needle`, read off the source."""
    lines = textwrap.dedent(ledger_files(version)[path]).splitlines()
    found = next(i for i, line in enumerate(lines) if needle in line)
    return next(i + 1 for i in range(found, -1, -1) if lines[i].lstrip().startswith("raise"))


VERSIONS = ("1.0", "1.1", "1.2")


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """The three versions, each a directory SOURCE, indexed into one real SQLite file."""
    root = tmp_path_factory.mktemp("ledger")
    store = open_store(root / "errdex.sqlite")
    for version in VERSIONS:
        tree = write_tree(root / version / "ledger", ledger_files(version))
        index_source(str(tree), store, use_cache=False)
    yield store
    store.close()


def diff(store: Store, old: str, new: str, package: str = "ledger") -> list[Change]:
    return diff_records(
        store.iter_records(package=package, version=old),
        store.iter_records(package=package, version=new),
    )


def brief(change: Change) -> tuple[str, str, str, str, str]:
    """(kind, old function, new function, exception now, message now) of a change."""
    record = change.new or change.old
    assert record is not None
    old = change.old.site.location.function if change.old else ""
    new = change.new.site.location.function if change.new else ""
    message = record.site.message.text if record.site.message else ""
    return change.kind, old, new, record.site.exception.name, message


def test_each_version_is_a_snapshot_of_its_own(ledger: Store) -> None:
    assert [(s.package, s.version, s.sites) for s in ledger.snapshots()] == [
        ("ledger", "1.0", 9),
        ("ledger", "1.1", 9),
        ("ledger", "1.2", 9),
    ]


def test_every_kind_of_change_between_two_versions(ledger: Store) -> None:
    changes = diff(ledger, "1.0", "1.1")
    assert [brief(c) for c in changes] == [
        (
            "added",
            "",
            "Account.transfer",
            "ValueError",
            "cannot transfer money to the same account",
        ),
        # rewritten beyond recognition: not a rewording
        (
            "added",
            "",
            "Account.rename",
            "ValueError",
            "{name!r} does not fit on a statement",
        ),
        # a message-less raise in another file: nothing says it is the same error
        ("added", "", "export", "TypeError", ""),
        (
            "removed",
            "Account.rename",
            "",
            "ValueError",
            "names are at most 40 characters",
        ),
        (
            "removed",
            "legacy_import",
            "",
            "NotImplementedError",
            "legacy import was removed; export from the old app as CSV",
        ),
        ("removed", "export", "", "TypeError", ""),
        (
            "reworded",
            "Account.withdraw",
            "Account.withdraw",
            "ValueError",
            "cannot withdraw {amount} from this account right now: "
            "the balance is just {self.balance}",
        ),
        (
            "retyped",
            "Account.close",
            "Account.close",
            "AccountError",
            "close the account only once its balance is zero",
        ),
        (
            "moved",
            "parse_currency",
            "parse_currency",
            "ValueError",
            "currency codes have three letters",
        ),
    ]
    assert summary(changes) == {
        "added": 3, "removed": 3, "reworded": 1, "retyped": 1, "moved": 1, "relaid": 0
    }  # fmt: skip
    moved = changes[-1]
    assert moved.old and moved.old.site.location.file == "ledger/accounts.py"
    assert moved.new and moved.new.site.location.file == "ledger/money.py"
    retyped = changes[-2]
    assert retyped.old and retyped.old.site.exception.name == "RuntimeError"


def test_unchanged_errors_keep_their_id_while_their_lines_move(ledger: Store) -> None:
    changes = diff(ledger, "1.0", "1.1")
    touched = {c.id for c in changes} | {c.old.id for c in changes if c.old}
    old = {r.id: r for r in ledger.iter_records(package="ledger", version="1.0")}
    new = {r.id: r for r in ledger.iter_records(package="ledger", version="1.1")}
    kept = sorted(old.keys() & new.keys())
    assert not set(kept) & touched
    functions = sorted(new[i].site.location.function for i in kept)
    assert functions == ["Account.deposit", "Account.freeze", "render"]
    for site_id in kept:  # accounts.py got lines above them, report.py did not
        before, after = old[site_id].site.location, new[site_id].site.location
        assert after.file == before.file
        assert (after.line > before.line) is (after.file == "ledger/accounts.py")
    deposit = next(i for i in kept if new[i].site.location.function == "Account.deposit")
    record = ledger.get(deposit, version="1.1")
    assert record is not None and record.versions == ("1.0", "1.1")
    assert record.site.location.line == line_of("1.1", "ledger/accounts.py", "deposit must")


def test_a_move_into_src_layout_is_only_relaid_errors(ledger: Store) -> None:
    # the same modules and functions, only under src/: not moved, nor added and removed
    changes = diff(ledger, "1.1", "1.2")
    assert summary(changes) == {
        "added": 0, "removed": 0, "reworded": 0, "retyped": 0, "moved": 0, "relaid": 9
    }  # fmt: skip
    for change in changes:
        assert change.old and change.new
        assert change.new.site.location.file == "src/" + change.old.site.location.file
        assert change.new.site.location.function == change.old.site.location.function
    # a message-less raise moves too, when its place and guards are the same
    bare = [c for c in changes if c.new and c.new.site.message is None]
    assert sorted(c.new.site.location.function for c in bare if c.new) == [
        "Account.freeze",
        "export",
    ]


def test_no_changes_between_a_version_and_itself(ledger: Store) -> None:
    assert diff(ledger, "1.1", "1.1") == []
    assert diff(ledger, "1.0", "1.0") == []


def test_a_reworded_message_is_shown_from_just_before_its_change(ledger: Store) -> None:
    changes = diff(ledger, "1.0", "1.1")
    text = render_text("ledger 1.0", "ledger 1.1", changes)
    lines = text.splitlines()
    assert lines[0] == (
        "ledger 1.0 -> ledger 1.1: 3 added, 3 removed, 1 reworded, 1 retyped, 1 moved, 0 relaid"
    )
    withdraw = line_of("1.1", "ledger/accounts.py", "cannot withdraw")
    assert (
        f"reworded  ValueError at ledger/accounts.py:{withdraw} (Account.withdraw): "
        "…from this account right now: the balance is only {self.balance} → "
        "…from this account right now: the balance is just {self.balance}"
    ) in lines
    close = line_of("1.1", "ledger/accounts.py", "close the account")
    assert (
        "retyped   close the account only once its balance is zero at "
        f"ledger/accounts.py:{close} (Account.close): RuntimeError → AccountError"
    ) in lines
    currency = line_of("1.1", "ledger/money.py", "three letters")
    assert (
        "moved     ValueError currency codes have three letters: ledger/accounts.py "
        f"(parse_currency) → ledger/money.py:{currency} (parse_currency)"
    ) in lines
    export = line_of("1.1", "ledger/export.py", "raise TypeError")
    assert f"added     TypeError at ledger/export.py:{export} (export): (no message)" in lines


def test_release_notes_in_markdown(ledger: Store) -> None:
    notes = render_markdown("1.0", "1.1", diff(ledger, "1.0", "1.1"))
    assert notes.startswith("## Errors: 1.0 → 1.1\n\n3 added, 3 removed, 1 reworded, 1 retyped")
    sections = [line for line in notes.splitlines() if line.startswith("### ")]
    assert sections == [
        "### New errors (3)",
        "### Errors no longer raised (3)",
        "### Reworded (1)",
        "### Exception class changed (1)",
        "### Moved (1)",
    ]
    assert "- NotImplementedError at ledger/accounts.py:" in notes
    assert "(legacy_import): `legacy import was removed; export from the old app as CSV`" in notes
    moves = render_markdown("1.1", "1.2", diff(ledger, "1.1", "1.2"))
    assert [line for line in moves.splitlines() if line.startswith("### ")] == [
        "### Same code, another folder (9)"
    ]
    # one line for them all, not one per error; the other way (an installed tree beside
    # the sdist of a src/ layout), the same errors
    back = diff(ledger, "1.2", "1.1")
    assert [c.kind for c in back] == ["relaid"] * 9
    assert "(no longer under src/)" in render_text("1.2", "1.1", back)
    assert moves.endswith(
        "9 errors unchanged but for their folder (now under `src/`):"
        " the same modules and functions.\n"
    )
    text = render_text("1.1", "1.2", diff(ledger, "1.1", "1.2")).splitlines()
    assert text[1:] == [
        "relaid    9 errors unchanged but for their folder (now under src/):"
        " the same modules and functions"
    ]
    # an error without a message says so, rather than showing empty backticks
    notes = render_markdown("1.0", "1.1", diff(ledger, "1.0", "1.1"))
    assert "``" not in notes and "TypeError at ledger/export.py:" in notes
    assert "(export): (no message)" in notes


def test_changes_as_json(ledger: Store) -> None:
    changes = diff(ledger, "1.0", "1.1")
    data = [change_to_json(c) for c in changes]
    json.dumps(data)
    added = data[0]
    assert added["kind"] == "added" and added["old"] is None
    assert added["new"]["function"] == "Account.transfer"
    assert set(added["new"]) == {"id", "exception", "message", "file", "line", "function"}
    removed = next(d for d in data if d["kind"] == "removed")
    assert removed["new"] is None and removed["old"]["file"] == "ledger/accounts.py"
    reworded = next(d for d in data if d["kind"] == "reworded")
    assert reworded["old"]["id"] != reworded["new"]["id"]
    assert reworded["old"]["message"].endswith("the balance is only {self.balance}")


def _newest(store: Store, function: str) -> Record:
    found = [
        r
        for r in store.iter_records(package="ledger", version="1.2")
        if r.site.location.function == function
    ]
    assert len(found) == 1
    record = store.get(found[0].id)
    assert record is not None
    return record


@pytest.mark.parametrize(
    ("function", "events"),
    [
        ("Account.withdraw", [("1.0", "1.1", "reworded"), ("1.1", "1.2", "relaid")]),
        ("Account.close", [("1.0", "1.1", "retyped"), ("1.1", "1.2", "relaid")]),
        ("Account.transfer", [("1.0", "1.1", "added"), ("1.1", "1.2", "relaid")]),
        ("parse_currency", [("1.0", "1.1", "moved"), ("1.1", "1.2", "relaid")]),
        ("Account.deposit", [("1.1", "1.2", "relaid")]),  # unchanged 1.0 -> 1.1
        ("export", [("1.0", "1.1", "added"), ("1.1", "1.2", "relaid")]),
    ],
)
def test_lineage_walks_back_through_every_version(
    ledger: Store, function: str, events: list[tuple[str, str, str]]
) -> None:
    record = _newest(ledger, function)
    assert record.versions == ("1.2",)  # the src/ move gave every error a new id
    found = lineage(ledger, record)
    assert [(e.old_version, e.new_version, e.kind) for e in found] == events
    assert found[-1].new is not None and found[-1].new.id == record.id
    for earlier, later in itertools.pairwise(found):
        assert earlier.new is not None and later.old is not None
        assert earlier.new.id == later.old.id  # each step starts where the last one ended


def test_lineage_of_a_reworded_error_carries_its_old_words(ledger: Store) -> None:
    (reworded, moved) = lineage(ledger, _newest(ledger, "Account.withdraw"))
    assert reworded.old and reworded.old.site.message
    assert reworded.old.site.message.text.endswith("the balance is only {self.balance}")
    assert reworded.old.version == "1.0" and moved.old and moved.old.version == "1.1"
    assert record_to_json(reworded.old)["location"]["file"] == "ledger/accounts.py"


def test_lineage_of_a_removed_error_says_when_it_went(ledger: Store) -> None:
    gone = next(
        r
        for r in ledger.iter_records(package="ledger", version="1.0")
        if r.site.location.function == "legacy_import"
    )
    record = ledger.get(gone.id)
    assert record is not None and record.versions == ("1.0",)
    assert [(e.old_version, e.new_version, e.kind) for e in lineage(ledger, record)] == [
        ("1.0", "1.1", "removed")
    ]


def _oldest(store: Store, function: str) -> Record:
    found = [
        r
        for r in store.iter_records(package="ledger", version="1.0")
        if r.site.location.function == function
    ]
    record = store.get(found[0].id, version="1.0")
    assert record is not None
    return record


def test_lineage_from_an_older_id_follows_it_forward(ledger: Store) -> None:
    # the 1.0 id of withdraw's error: reworded in 1.1, then under src/ in 1.2
    record = _oldest(ledger, "Account.withdraw")
    assert record.versions == ("1.0",)
    found = lineage(ledger, record)
    assert [(e.old_version, e.new_version, e.kind) for e in found] == [
        ("1.0", "1.1", "reworded"),
        ("1.1", "1.2", "relaid"),
    ]
    assert found[0].old is not None and found[0].old.id == record.id
    assert found[-1].new is not None and found[-1].new.id == _newest(ledger, "Account.withdraw").id
    # the same lineage as from the newest id
    assert [
        (e.old_version, e.kind) for e in lineage(ledger, _newest(ledger, "Account.withdraw"))
    ] == [(e.old_version, e.kind) for e in found]


def test_history_of_an_older_id_through_the_cli(ledger: Store) -> None:
    record = _oldest(ledger, "Account.close")
    assert isinstance(ledger, SqliteStore)
    done = subprocess.run(
        [sys.executable, "-m", "errdex", "history", record.id, "--db", str(ledger.path)],
        capture_output=True, text=True, timeout=120, env={**os.environ, "NO_COLOR": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"{record.id}  ledger: in 1.0"
    assert lines[1].startswith("  1.0 -> 1.1: retyped RuntimeError -> AccountError  (id ")
    assert lines[2].startswith("  1.1 -> 1.2: relaid ledger/accounts.py (Account.close) ->")


def test_a_message_given_to_a_bare_raise_is_a_rewording(tmp_path: Path) -> None:
    store = open_store(tmp_path / "errdex.sqlite")
    for version, raised in (("1.0", "raise KeyError"), ("2.0", "raise KeyError(f'no key {k}')")):
        tree = write_tree(tmp_path / version / "keys", {
            "pyproject.toml": f'[project]\nname = "keys"\nversion = "{version}"\n',
            "keys/__init__.py": f"def get(d, k):\n    if k not in d:\n        {raised}\n",
        })  # fmt: skip
        index_source(str(tree), store, use_cache=False)
    forward = diff(store, "1.0", "2.0", package="keys")
    assert [brief(c) for c in forward] == [("reworded", "get", "get", "KeyError", "no key {k}")]
    back = diff(store, "2.0", "1.0", package="keys")  # and the message taken away again
    assert [c.kind for c in back] == ["reworded"]


def test_a_second_version_reuses_the_facts_of_unchanged_files(tmp_path: Path) -> None:
    # 1.0 -> 1.1 leaves ledger/__init__.py alone: its facts come from the cache
    old, new = (
        resolve(str(write_tree(tmp_path / v / "ledger", ledger_files(v)))) for v in ("1.0", "1.1")
    )
    stacked = open_store(tmp_path / "stacked.sqlite")
    first = index_snapshot(old, stacked, cache_path=tmp_path / "stacked-facts.sqlite")
    second = index_snapshot(new, stacked, cache_path=tmp_path / "stacked-facts.sqlite")
    alone = open_store(tmp_path / "alone.sqlite")
    index_snapshot(new, alone, cache_path=tmp_path / "alone-facts.sqlite")
    assert first.parsed == first.files == 3
    assert (second.files, second.parsed) == (6, 5)

    def records(store: Store) -> list[str]:
        return [
            json.dumps(record_to_json(r), sort_keys=True)
            for r in store.iter_records(package="ledger", version="1.1")
        ]

    assert records(stacked) == records(alone)


# -- real releases from PyPI ----------------------------------------------------------

OLD, NEW = "pypi:requests==2.31.0", "pypi:requests==2.32.3"
REWORDED_OLD = (
    "Invalid leading whitespace, reserved character(s), or returncharacter(s) in header "
    "{header_kind}: {header_part!r}"
)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    require_pypi(OLD, NEW)
    store = open_store(tmp_path_factory.mktemp("history") / "errdex.sqlite")
    index_source(OLD, store)
    index_source(NEW, store)
    return store


def changes_of(store: Store) -> list[tuple[str, str, str]]:
    """(kind, function, message) of each change but the moves, 2.31.0 -> 2.32.3."""
    out: list[tuple[str, str, str]] = []
    for change in diff(store, "2.31.0", "2.32.3", package="requests"):
        record = change.new or change.old
        assert record is not None
        if change.kind not in ("moved", "relaid"):
            message = record.site.message
            function = record.site.location.function
            out.append((change.kind, function, message.text if message else ""))
    return out


@network
def test_added_removed_and_reworded_errors_are_the_ones_verified_by_hand(store: Store) -> None:
    assert changes_of(store) == [
        ("added", "HTTPAdapter.get_connection_with_tls_context", "{e}"),
        (
            "added",
            "HTTPAdapter.get_connection_with_tls_context",
            "Please check proxy URL. It is malformed and could be missing the host.",
        ),
        (
            "removed",
            "check_compatibility",
            "You need either charset_normalizer or chardet installed",
        ),
        (
            "reworded",
            "_validate_header_part",
            REWORDED_OLD.replace("returncharacter", "return character"),
        ),
    ]


@network
def test_the_move_to_src_layout_is_relaid_errors_not_new_ones(store: Store) -> None:
    changes = diff(store, "2.31.0", "2.32.3", package="requests")
    counts = summary(changes)
    assert counts["retyped"] == 0 and counts["moved"] == 0 and counts["relaid"] == 63
    moved = [c for c in changes if c.kind == "relaid"]
    assert all(c.new and c.new.site.location.file.startswith("src/requests/") for c in moved)
    assert all(c.old and c.old.site.location.file.startswith("requests/") for c in moved)


@network
def test_history_links_the_reworded_error_to_its_predecessor(store: Store) -> None:
    reworded = store.find_by_message(REWORDED_OLD.replace("returncharacter", "return character"))
    record = store.get(reworded[0].id)
    assert record is not None and record.versions == ("2.32.3",)
    events = lineage(store, record)
    assert [(e.old_version, e.new_version, e.kind) for e in events] == [
        ("2.31.0", "2.32.3", "reworded")
    ]
    assert events[0].old and events[0].old.site.message
    assert events[0].old.site.message.text == REWORDED_OLD


@network
def test_unchanged_error_lists_both_versions(store: Store) -> None:
    found = store.find_by_message("You can only send PreparedRequests.")
    record = store.get(found[0].id)
    assert record is not None
    # The file moved into src/, so the id changed: only the newest version has it ...
    assert record.versions == ("2.32.3",)
    # ... and the lineage says it was relaid (into src/) rather than appeared.
    assert [e.kind for e in lineage(store, record)] == ["relaid"]


@network
def test_second_version_reuses_cached_files_with_identical_results(tmp_path: Path) -> None:
    # idna keeps its layout between these releases, so unchanged files share cache keys.
    require_pypi("pypi:idna==3.6", "pypi:idna==3.7")
    old, new = (resolve(f"pypi:idna=={v}", cache_dir=TEST_CACHE) for v in ("3.6", "3.7"))
    stacked = open_store(tmp_path / "stacked.sqlite")
    first = index_snapshot(old, stacked, cache_path=tmp_path / "stacked-facts.sqlite")
    second = index_snapshot(new, stacked, cache_path=tmp_path / "stacked-facts.sqlite")
    alone = open_store(tmp_path / "alone.sqlite")
    index_snapshot(new, alone, cache_path=tmp_path / "alone-facts.sqlite")
    assert first.parsed == first.files
    assert 0 < second.parsed < second.files  # files unchanged since 3.6 came from the cache

    def records(store: Store) -> list[str]:
        return [
            json.dumps(record_to_json(r), sort_keys=True)
            for r in store.iter_records(package="idna", version="3.7")
        ]

    assert records(stacked) == records(alone)


@network
def test_all_versions_since_indexes_each_release_once(tmp_path: Path) -> None:
    # Listing the releases always asks the index: offline, this test is skipped.
    from errdex.index import index_all_versions
    from errdex.sources import pypi_versions

    store = open_store(tmp_path / "errdex.sqlite")
    wanted = [v for v in pypi_versions("six") if Version(v) >= Version("1.16.0")]
    first = index_all_versions("six", store, since="1.16.0")
    assert [r.snapshot.version for r in first] == wanted
    assert index_all_versions("six", store, since="1.16.0") == []  # nothing left to do
    assert [s.version for s in store.snapshots()] == wanted
