# The store against real SQLite files and a real PostgreSQL server (each test that takes
# `store` or `db_location` runs on both): sites go in as the indexer writes them and come
# back out as typed records that say exactly the same.
from __future__ import annotations

import dataclasses
import json
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from errdex.codec import dumps, record_to_json, site_to_json
from errdex.errors import AmbiguousMessage, ErrorNotFound, NoDatabase, StoreError
from errdex.model import (
    Enrichment,
    ErrorSite,
    ExceptionRef,
    Explanation,
    Guard,
    Hole,
    IndexFailure,
    Location,
    Message,
    Record,
    SkippedFile,
    Snapshot,
    Snippet,
    StoredSnapshot,
    Text,
)
from errdex.store import (
    SCHEMA_VERSION,
    SqliteStore,
    Store,
    find_error,
    open_store,
    sort_versions,
)

DATA = Path(__file__).parent / "data"


def site(
    site_id: str,
    *,
    file: str = "pkg/config.py",
    line: int = 10,
    function: str = "Config.check",
    exception: tuple[str, str] = ("ValueError", "builtins.ValueError"),
    parts: tuple[Text | Hole, ...] | None = (Text(text="bad value: "), Hole(expr="self.x")),
) -> ErrorSite:
    """Return an ErrorSite with sensible defaults; override what a test is about."""
    return ErrorSite(
        id=site_id,
        kind="raise",
        exception=ExceptionRef(name=exception[0], qualname=exception[1]),
        message=None if parts is None else Message(parts=parts),
        location=Location(file=file, line=line, end_line=line, function=function),
        snippet=Snippet(start_line=line - 1, lines=("if self.x < 0:", "    raise ...")),
        guard=(Guard(kind="if", test="self.x < 0", negated=False, line=line - 1),),
    )


def snap(version: str = "1.0.0", package: str = "pkg") -> Snapshot:
    return Snapshot(
        package=package,
        version=version,
        root=Path("/nonexistent"),
        source=f"pypi:{package}=={version}",
        repo_url="https://github.com/example/pkg",
        commit="abc1234",
        date="2024-05-01",
    )


def write(
    store: Store, snapshot: Snapshot, sites: list[ErrorSite], *, tree_hash: str = "h1"
) -> None:
    store.write_snapshot(
        snapshot,
        sites,
        files=3,
        skipped=[SkippedFile(path="pkg/broken.py", reason="SyntaxError: invalid syntax")],
        tree_hash=tree_hash,
        extractor="x1",
    )


def ids(records: list[Record]) -> list[str]:
    return [r.id for r in records]


@pytest.fixture
def store(db_location: str) -> Iterator[Store]:
    with open_store(db_location) as s:
        yield s


def raw_count(location: str, table: str) -> int:
    """How many rows `table` of the database at `location` has, read without errdex."""
    if location.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(location) as conn:
            row = conn.execute(f"SELECT count(*) FROM {table}").fetchone()
    else:
        with sqlite3.connect(location) as raw:
            row = raw.execute(f"SELECT count(*) FROM {table}").fetchone()
        raw.close()
    assert row is not None
    return int(row[0])


SITES = [
    site("a" * 16, file="pkg/config.py", line=30),
    site(
        "b" * 16,
        file="pkg/config.py",
        line=5,
        exception=("errors.ConfigError", "pkg.errors.ConfigError"),
    ),
    site("c" * 16, file="pkg/io/read.py", line=7, exception=("OSError", "builtins.OSError")),
    site("d" * 16, file="pkg/io/write.py", line=9, parts=(Text(text="  cannot write {}  "),)),
    site("e" * 16, file="pkg/main.py", line=1, parts=None),
]


def test_round_trip(store: Store) -> None:
    snapshot = snap()
    write(store, snapshot, SITES)

    for original in SITES:
        record = store.get(original.id)
        assert record is not None
        assert record.site == original
        assert (record.package, record.version, record.versions) == ("pkg", "1.0.0", ("1.0.0",))
        assert (record.repo_url, record.commit) == ("https://github.com/example/pkg", "abc1234")
        assert record.ai is None
        json_form = record_to_json(record)
        assert json_form.pop("versions") == ["1.0.0"]
        assert json_form == site_to_json(original, snapshot)
    assert store.get("f" * 16) is None
    texts = {json.loads(text)["id"]: text for text in store.iter_records_json()}
    for original in SITES:  # the same bytes as codec writes, field order and all
        assert texts[original.id] == dumps(site_to_json(original, snapshot)).rstrip("\n")
    assert store.snapshot_state("pkg", "1.0.0") == ("h1", "x1")
    assert store.snapshot_state("pkg", "2.0.0") is None
    [row] = store.snapshots()
    assert row.indexed_at
    assert row == StoredSnapshot(
        package="pkg",
        version="1.0.0",
        source="pypi:pkg==1.0.0",
        repo_url="https://github.com/example/pkg",
        commit="abc1234",
        date="2024-05-01",
        files=3,
        sites=5,
        skipped=(SkippedFile(path="pkg/broken.py", reason="SyntaxError: invalid syntax"),),
        indexed_at=row.indexed_at,
    )


def test_reopen_keeps_data(db_location: str) -> None:
    with open_store(db_location) as store:
        write(store, snap(), SITES)
    with open_store(db_location, create=False) as store:
        assert store.count() == 5


def test_a_new_sqlite_file_gets_its_folders(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "errdex.sqlite"
    with open_store(path) as store:
        write(store, snap(), SITES)
    with open_store(str(path)) as store:
        assert store.count() == 5


def test_rewrite_replaces_the_snapshot(store: Store, db_location: str) -> None:
    write(store, snap(), SITES)
    write(store, snap(), [site("f" * 16)], tree_hash="h2")

    assert ids(store.list_records()) == ["f" * 16]
    assert store.get("a" * 16) is None
    assert store.snapshot_state("pkg", "1.0.0") == ("h2", "x1")
    assert [s.sites for s in store.snapshots()] == [1]
    # the records and the search index follow (PostgreSQL's is on the records)
    assert raw_count(db_location, "records") == 1
    if not db_location.startswith("postgresql://"):
        assert raw_count(db_location, "sites_fts") == 1
    assert store.search("bad value").total == 1


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt, RuntimeError])
def test_interrupted_write_leaves_the_previous_snapshot_whole(
    store: Store, interrupt: type[BaseException]
) -> None:
    write(store, snap(), SITES)
    before = (store.list_records(), store.snapshots())

    def records_then_crash() -> Iterator[ErrorSite]:
        yield from [site("f" * 16), site("0" * 16, line=99)]
        raise interrupt("stopped midway")

    with pytest.raises(interrupt, match="stopped midway"):
        store.write_snapshot(
            snap(), records_then_crash(), files=1, skipped=[], tree_hash="h2", extractor="x1"
        )

    assert (store.list_records(), store.snapshots()) == before
    assert store.snapshot_state("pkg", "1.0.0") == ("h1", "x1")
    write(store, snap("2.0.0"), SITES)  # and the store is still writable
    assert store.count(version="*") == 10


def test_model_notes_are_kept_beside_the_record(store: Store) -> None:
    write(store, snap(), SITES)
    first = Enrichment(site_id="a" * 16, model="m1", created="2026-01-01T00:00:00+00:00", text="A")
    later = Enrichment(site_id="a" * 16, model="m2", created="2026-02-01T00:00:00+00:00", text="B")
    store.save_enrichment(first)
    store.save_enrichment(later)
    assert store.enrichment("a" * 16) == later  # the newest, whichever model
    assert store.enrichment("a" * 16, "m1") == first
    assert store.enrichment("b" * 16) is None
    record = store.get("a" * 16)
    assert record is not None and record.ai == later
    assert record_to_json(record)["ai"] == {
        "text": "B", "model": "m2", "created": "2026-02-01T00:00:00+00:00", "provenance": "llm",
    }  # fmt: skip
    store.save_enrichment(Enrichment(site_id="a" * 16, model="m1", created="2026-03", text="C"))
    assert store.enrichment("a" * 16, "m1") == Enrichment(
        site_id="a" * 16, model="m1", created="2026-03", text="C"
    )  # the same model's note is replaced
    write(store, snap("2.0"), SITES)  # a note is about the error, whatever the version
    again = store.get("a" * 16)
    assert again is not None and again.version == "2.0" and again.ai is not None


def test_find_error_by_id_or_message(store: Store) -> None:
    write(store, snap(), SITES)
    by_id = find_error(store, " " + "a" * 16 + "\n")
    assert by_id.id == "a" * 16 and by_id.versions == ("1.0.0",)
    by_message = find_error(store, "cannot write {}")
    assert by_message == store.get("d" * 16)  # the same record as by id, versions included
    with pytest.raises(AmbiguousMessage) as many:
        find_error(store, "bad value: {self.x}")
    assert many.value.ids == ("b" * 16, "a" * 16, "c" * 16)
    with pytest.raises(ErrorNotFound, match="no error with id or message 'nothing here'"):
        find_error(store, "nothing here")


def test_a_version_1_database_is_migrated_in_place(tmp_path: Path) -> None:
    """A database as the first errdex wrote it (tests/data/schema-v1.sql, from git
    history) gains model notes and the match index, and keeps its records."""
    path = tmp_path / "errdex.sqlite"
    snapshot = snap()
    with sqlite3.connect(path) as raw:
        raw.executescript((DATA / "schema-v1.sql").read_text())
        raw.execute("INSERT INTO meta VALUES ('schema_version', '1')")
        raw.execute(
            "INSERT INTO snapshots VALUES (1, 'pkg', '1.0.0', 'pypi:pkg==1.0.0',"
            " 'https://github.com/example/pkg', 'abc1234', '2024-05-01', 3, 5, 'h1', 'x1',"
            " '2024-05-02T00:00:00+00:00')"
        )
        for number, original in enumerate(SITES, start=1):
            message = original.message
            raw.execute(
                "INSERT INTO sites VALUES (?, 1, ?, ?, ?, ?, 'raise', ?, ?, ?, ?, NULL, NULL, ?)",
                (
                    number,
                    original.id,
                    original.location.file,
                    original.location.line,
                    original.location.function,
                    original.exception.name,
                    original.exception.qualname,
                    original.exception.qualname.rpartition(".")[2],
                    None if message is None else message.text,
                    json.dumps(site_to_json(original, snapshot)),
                ),
            )
    raw.close()
    with open_store(path) as store:
        assert store.count() == 5
        record = store.get("a" * 16)
        assert record is not None and record.site == SITES[0]
        store.save_enrichment(Enrichment(site_id="a" * 16, model="m", created="t", text="x"))
        assert store.enrichment("a" * 16) is not None
        [found] = store.indexed_sites(bases=["read.py"])  # the match index was filled in
        assert (found.id, found.template_id is not None) == ("c" * 16, True)
    with sqlite3.connect(path) as raw:
        version = raw.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        assert version == (str(SCHEMA_VERSION),)
        assert raw.execute("SELECT count(*) FROM templates").fetchone() == (2,)
        assert raw.execute("SELECT count(*) FROM records").fetchone() == (5,)
        assert raw.execute("SELECT count(*) FROM sites_fts").fetchone() == (5,)
        # the old sites table's pages were given back (VACUUM after the move)
        assert raw.execute("PRAGMA freelist_count").fetchone() == (0,)
    raw.close()


def fixture_sites(version: str, shift: int) -> tuple[Snapshot, list[ErrorSite]]:
    """The sites of tests/data/schema-v4-*.sql at `version`: SITES moved down `shift`
    lines, each explained, with a report link that names the version, commit and line."""
    from errdex.explain.report import report_issue_url

    snapshot = snap(version)
    out = []
    for original in SITES:
        loc = original.location
        moved = dataclasses.replace(
            original,
            location=dataclasses.replace(loc, line=loc.line + shift, end_line=loc.end_line + shift),
        )
        url = report_issue_url(moved, snapshot, "Bad value")
        explanation = Explanation(
            title="Bad value",
            what_it_means="m",
            when_it_happens="w",
            solutions=(f"Report it: {url}",),
            report_issue_url=url,
        )
        out.append(dataclasses.replace(moved, explanation=explanation))
    return snapshot, out


def load_version_4(location: str) -> None:
    """Make the database at `location` the schema-4 one that errdex 3d5666e wrote from
    fixture_sites (tests/data/schema-v4-*.sql, see tests/data/README.md)."""
    if location.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(location, autocommit=True) as conn:
            conn.execute((DATA / "schema-v4-postgres.sql").read_text())
        return
    with sqlite3.connect(location) as raw:
        raw.executescript((DATA / "schema-v4-sqlite.sql").read_text())
    raw.close()


def test_a_version_4_database_is_migrated_in_place(db_location: str) -> None:
    """Version 4 kept a record once per version whose lines moved; migrated, the two
    versions share each record, and every record reads as it was written."""
    load_version_4(db_location)
    assert (raw_count(db_location, "records"), raw_count(db_location, "members")) == (10, 10)
    with open_store(db_location) as store:
        for version, shift in (("1.0.0", 0), ("1.1.0", 3)):
            snapshot, sites = fixture_sites(version, shift)
            got = [record_to_json(r) for r in store.iter_records(version=version)]
            want = [site_to_json(s, snapshot) for s in sorted(sites, key=lambda s: (
                s.location.file, s.location.line))]  # fmt: skip
            assert got == want
        assert store.search("bad value", version="*").total == 10  # every title
        found = store.indexed_sites(bases=["read.py"])  # each version at its own line
        assert [(s.version, s.line) for s in found] == [("1.0.0", 7), ("1.1.0", 10)]
    assert (raw_count(db_location, "records"), raw_count(db_location, "members")) == (5, 10)
    assert raw_count(db_location, "templates") == 2
    if not db_location.startswith("postgresql://"):
        assert raw_count(db_location, "sites_fts") == 5
    with open_store(db_location) as store:  # opened again: nothing left to migrate
        assert store.count(version="*") == 10


def test_a_version_that_only_moved_shares_every_record(store: Store, db_location: str) -> None:
    """Every line moved (and the report link with it): one record each for both
    versions, each read as written; emptying one version leaves the other whole."""
    old, old_sites = fixture_sites("1.0.0", 0)
    new, new_sites = fixture_sites("1.1.0", 40)
    write(store, old, old_sites)
    write(store, new, new_sites)
    assert (raw_count(db_location, "records"), raw_count(db_location, "members")) == (5, 10)

    def read(snapshot: Snapshot) -> list[str]:
        return [dumps(record_to_json(r)) for r in store.iter_records(version=snapshot.version)]

    def written(snapshot: Snapshot, sites: list[ErrorSite]) -> list[str]:
        ordered = sorted(sites, key=lambda s: (s.location.file, s.location.line))
        return [dumps(site_to_json(s, snapshot)) for s in ordered]

    assert read(old) == written(old, old_sites) and read(new) == written(new, new_sites)
    write(store, old, [])
    assert read(new) == written(new, new_sites)
    assert raw_count(db_location, "records") == 5
    assert store.search("report", version="1.1.0").total == 5  # search rows kept too
    write(store, new, new_sites[:2])
    assert raw_count(db_location, "records") == 2  # the rest had no snapshot left


@pytest.mark.parametrize(("version", "commit"), [("1.1.0", "abc1234"), ("1", "1"), ("0", None)])
def test_a_body_with_its_marks_filled_in_is_the_record_byte_for_byte(
    version: str, commit: str | None
) -> None:
    """Text that looks like a line-number key, a version or commit that is also part of
    other text, no commit: the stored body gives back exactly what codec writes."""
    from errdex.codec import shared_body, shared_record_text

    snapshot = dataclasses.replace(snap(version), commit=commit)
    tricky = Message(parts=(Text(text='{"line":12} at line 12 of 1.1.0 (commit 1) '),
                            Hole(expr="x")))  # fmt: skip
    # what the splice looks for, and a format string's own marks, inside the texts
    odd = site("9" * 16, file='pkg/ä "q" \\%d\t/m.py', function='f},"snippet":{"start_line":1',
               parts=(Text(text='5%s %d %% ","line": \x01 é'), Hole(expr="y")))  # fmt: skip
    for original in [*fixture_sites(version, 100)[1], site("f" * 16, parts=tricky.parts), odd]:
        body = shared_body(original, version, commit)
        line = original.location.line
        text = shared_record_text(body, line, "pkg", version, snapshot.repo_url, commit)
        assert text == dumps(site_to_json(original, snapshot)).rstrip("\n")
        assert str(line) not in body.text.split('"snippet"')[0]  # the line is a mark


def test_filters(store: Store) -> None:
    write(store, snap(), SITES)

    # ordered by file, then line
    assert ids(store.list_records()) == ["b" * 16, "a" * 16, "c" * 16, "d" * 16, "e" * 16]
    assert ids(store.list_records(exception="OSError")) == ["c" * 16]
    assert ids(store.list_records(exception="builtins.OSError")) == ["c" * 16]
    for name in ("errors.ConfigError", "pkg.errors.ConfigError", "ConfigError"):
        assert ids(store.list_records(exception=name)) == ["b" * 16]
    assert store.list_records(exception="Error") == []
    assert ids(store.list_records(file_glob="pkg/io/*")) == ["c" * 16, "d" * 16]
    assert ids(store.list_records(file_glob="pkg/[!i]*.py")) == ["b" * 16, "a" * 16, "e" * 16]
    # as in fnmatch, * crosses folders
    assert ids(store.list_records(file_glob="pkg/*.py", exception="ValueError")) == [
        "a" * 16,
        "d" * 16,
        "e" * 16,
    ]
    assert ids(store.list_records(limit=2, offset=1)) == ["a" * 16, "c" * 16]
    assert store.count() == 5
    assert store.count(file_glob="pkg/io/*") == 2
    assert store.list_records(package="other") == []
    assert store.count(version="0.1") == 0


def test_versions_across_snapshots(store: Store) -> None:
    old, new = snap("1.0.0"), snap("1.1.0")
    write(store, old, [site("a" * 16, line=30), site("b" * 16)])
    write(store, new, [site("a" * 16, line=31), site("c" * 16)])

    record = store.get("a" * 16)
    assert record is not None
    assert (record.version, record.site.location.line) == ("1.1.0", 31)
    assert record.versions == ("1.0.0", "1.1.0")
    pinned = store.get("a" * 16, version="1.0.0")
    assert pinned is not None and pinned.site.location.line == 30
    assert pinned.versions == ("1.0.0", "1.1.0")
    gone = store.get("b" * 16)  # only in the old version: still found there
    assert gone is not None and gone.versions == ("1.0.0",)
    assert store.get("b" * 16, version="1.1.0") is None
    assert store.get("a" * 16, package="other") is None

    assert ids(store.list_records()) == ["c" * 16, "a" * 16]  # by line: 10, 31
    assert ids(store.list_records(version="1.0.0")) == ["b" * 16, "a" * 16]
    assert [r.version for r in store.iter_records(version="*")] == [
        "1.0.0", "1.0.0", "1.1.0", "1.1.0",
    ]  # fmt: skip
    # the ids alone, in the same order, each once
    assert store.site_ids(version="*") == ["b" * 16, "a" * 16, "c" * 16]
    assert store.site_ids() == ids(store.list_records())
    assert store.site_ids(package="other") == []


def test_record_states_say_which_records_changed_without_reading_them(store: Store) -> None:
    old, new = snap("1.0.0"), snap("1.1.0")
    write(store, old, [site("a" * 16, line=30), site("b" * 16)])
    write(store, new, [site("a" * 16, line=30), site("c" * 16)])
    states = store.record_states()
    # iter_records(version="*")'s rows and order, without the bodies
    rows = [(r.id, r.package, r.version) for r in store.iter_records(version="*")]
    assert [s[:3] for s in states] == rows
    digests = {(i, version): d for i, _, version, d in states}
    assert digests["a" * 16, "1.0.0"] == digests["a" * 16, "1.1.0"]  # the same record
    assert len(set(digests.values())) == 3
    write(store, new, [site("a" * 16, line=31), site("c" * 16)])  # a moved
    moved = {(i, version): d for i, _, version, d in store.record_states()}
    assert moved["a" * 16, "1.1.0"] != digests["a" * 16, "1.1.0"]
    assert moved["c" * 16, "1.1.0"] == digests["c" * 16, "1.1.0"]
    assert store.enrichment_states() == []
    note = Enrichment(site_id="a" * 16, model="m1", created="2026-01-01", text="A")
    store.save_enrichment(note)
    assert store.enrichment_states() == [("a" * 16, "m1", "2026-01-01", "llm", "A")]


def test_an_id_two_packages_share_is_found_in_the_one_asked(store: Store) -> None:
    write(store, snap("1.0.0"), [site("a" * 16, line=30)])
    write(store, snap("2.0.0", package="vendor"), [site("a" * 16, line=40)])

    for package, line in (("pkg", 30), ("vendor", 40)):
        found = store.get("a" * 16, package=package)
        assert found is not None and (found.package, found.site.location.line) == (package, line)
    assert store.get("a" * 16, package="Vendor") is not None  # names compare canonically
    assert store.get("a" * 16, package="vendor", version="1.0.0") is None


def test_newest_version_is_by_pep440_not_by_string_or_insertion(store: Store) -> None:
    write(store, snap("0.10.0"), [site("a" * 16, line=10)])
    write(store, snap("0.9.0"), [site("a" * 16, line=9)])
    write(store, snap("1.0", package="other"), [site("b" * 16, file="other/x.py")])

    assert [(s.package, s.version) for s in store.snapshots()] == [
        ("other", "1.0"), ("pkg", "0.9.0"), ("pkg", "0.10.0"),
    ]  # fmt: skip
    record = store.get("a" * 16)
    assert record is not None
    assert record.version == "0.10.0"
    assert record.versions == ("0.9.0", "0.10.0")
    assert [(r.package, r.version) for r in store.iter_records()] == [
        ("other", "1.0"), ("pkg", "0.10.0"),
    ]  # fmt: skip
    assert ids(store.list_records(package="pkg")) == ["a" * 16]
    assert store.list_records(package="pkg")[0].site.location.line == 10


def test_non_pep440_versions_sort_first_by_string() -> None:
    assert sort_versions(["1.0", "main", "0.10", "0.9", "dev-branch"]) == [
        "dev-branch", "main", "0.9", "0.10", "1.0",
    ]  # fmt: skip


def test_find_by_message(store: Store) -> None:
    write(store, snap("0.9.0"), [site("9" * 16, parts=(Text(text="old message"),))])
    write(store, snap("0.10.0"), SITES)

    assert ids(store.find_by_message("bad value: {self.x}")) == ["b" * 16, "a" * 16, "c" * 16]
    # a static message matches its literal text, braces single, whitespace ignored
    assert ids(store.find_by_message("cannot write {}")) == ["d" * 16]
    assert ids(store.find_by_message("\tcannot write {}\n")) == ["d" * 16]
    assert ids(store.find_by_message("  cannot write {{}}  ")) == ["d" * 16]  # its text
    assert store.find_by_message("bad value: 3") == []  # holes are for the matcher
    assert store.find_by_message("old message") == []  # not in the newest version


def test_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "notes.sqlite"
    path.write_text("these are my notes, not a database\n" * 100)
    with pytest.raises(StoreError, match=r"notes\.sqlite is not an errdex database: file is not"):
        open_store(path)
    assert path.read_text().startswith("these are my notes")


def test_a_folder_is_not_a_database_file(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=r"cannot open database .*: unable to open"):
        open_store(tmp_path)


def test_someone_elses_sqlite_database(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as raw:
        raw.execute("CREATE TABLE customers (name TEXT)")
    raw.close()
    with pytest.raises(StoreError, match=r"is not an errdex database: .*\(tables: customers\)"):
        open_store(path)


def test_database_from_a_newer_errdex(tmp_path: Path) -> None:
    path = tmp_path / "errdex.sqlite"
    open_store(path).close()
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    raw.close()
    with pytest.raises(
        StoreError,
        match=f"newer errdex \\(schema version 99; this errdex reads up to {SCHEMA_VERSION}\\)",
    ):
        open_store(path)


def test_a_postgresql_server_that_does_not_answer(postgres_server: str) -> None:
    port = int(postgres_server.rsplit(":", 1)[1]) + 1  # nothing listens next to it, say
    url = f"postgresql://someone:secret@127.0.0.1:{port}/errdex?connect_timeout=2"
    with pytest.raises(StoreError, match=r"cannot connect to the PostgreSQL database") as caught:
        open_store(url)
    assert "secret" not in str(caught.value)  # the password stays out of messages


def test_a_postgresql_database_without_errdex(postgres_db: str) -> None:
    import psycopg

    with pytest.raises(NoDatabase, match="there is no errdex database at postgresql://"):
        open_store(postgres_db, create=False)
    with psycopg.connect(postgres_db, autocommit=True) as raw:
        raw.execute("CREATE TABLE customers (name TEXT)")
    with pytest.raises(StoreError, match=r"is not an errdex database: .*\(tables: customers\)"):
        open_store(postgres_db)


def test_a_postgresql_database_from_a_newer_errdex(postgres_db: str) -> None:
    import psycopg

    open_store(postgres_db).close()
    with psycopg.connect(postgres_db, autocommit=True) as raw:
        raw.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(StoreError, match="newer errdex \\(schema version 99"):
        open_store(postgres_db)


def test_failures_are_kept_until_the_source_is_indexed(store: Store) -> None:
    failure = IndexFailure(source="pypi:nope==1", reason="no such package", attempts=3,
                           failed_at="2026-12-01T00:00:00+00:00")  # fmt: skip
    store.record_failure(failure)
    store.record_failure(dataclasses.replace(failure, reason="still missing", attempts=1))
    assert store.failures() == [dataclasses.replace(failure, reason="still missing", attempts=1)]
    store.clear_failure("pypi:nope==1")
    assert store.failures() == []


def test_records_versions_share_are_stored_once(store: Store, db_location: str) -> None:
    write(store, snap("1.0.0"), SITES)
    write(store, snap("1.1.0"), [*SITES[:4], site("f" * 16)])  # one error changed
    assert [r.version for r in store.iter_records(version="*")].count("1.1.0") == 5
    record = store.get("a" * 16)
    assert record is not None and record.versions == ("1.0.0", "1.1.0")
    assert record_to_json(dataclasses.replace(record, versions=())) == site_to_json(
        SITES[0], snap("1.1.0")
    )
    assert raw_count(db_location, "records") == 6  # five shared, one new
    assert raw_count(db_location, "members") == 10
    # a report link names its version: kept per version, the rest still shared
    explained = [
        dataclasses.replace(
            s,
            explanation=Explanation(
                title="Bad value",
                what_it_means="m",
                when_it_happens="w",
                report_issue_url=f"https://github.com/example/pkg/issues/new?body={version}",
            ),
        )
        for version in ("1.2.0", "1.3.0")
        for s in SITES[:1]
    ]
    write(store, snap("1.2.0"), explained[:1])
    write(store, snap("1.3.0"), explained[1:])
    assert raw_count(db_location, "records") == 7  # one more body for both versions
    for version, original in (("1.2.0", explained[0]), ("1.3.0", explained[1])):
        record = store.get("a" * 16, version=version)
        assert record is not None and record.site == original
        assert record_to_json(dataclasses.replace(record, versions=())) == site_to_json(
            original, snap(version)
        )
    write(store, snap("1.2.0"), [])
    write(store, snap("1.3.0"), [])
    write(store, snap("1.0.0"), [])  # the old version emptied: its own record goes
    assert raw_count(db_location, "records") == 5
    assert store.search("bad value", version="1.1.0").total == 4  # shared rows still found


def test_default_location_follows_errdex_db(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ERRDEX_DB", str(tmp_path / "env.sqlite"))
    with open_store(None) as store:
        assert isinstance(store, SqliteStore) and store.path == tmp_path / "env.sqlite"
    assert (tmp_path / "env.sqlite").exists()


def test_closed_store_says_so(db_location: str) -> None:
    store = open_store(db_location)
    store.close()
    with pytest.raises(StoreError, match="is closed"):
        store.count()


def test_shared_across_threads_and_connections(store: Store, db_location: str) -> None:
    write(store, snap(), SITES)
    seen: list[int] = []
    worker = threading.Thread(target=lambda: seen.append(store.count()))
    worker.start()
    worker.join()
    assert seen == [5]
    with open_store(db_location) as second:  # another "process"
        write(second, snap("2.0"), SITES[:1])
    assert store.count(version="*") == 6


def test_seven_thousand_records_write_fast(store: Store) -> None:
    snapshot = snap()
    sites = [site(f"{i:016x}", file=f"pkg/m{i % 300}.py", line=i) for i in range(7000)]
    store.write_snapshot(snapshot, sites, files=300, skipped=[], tree_hash="h", extractor="x")
    assert store.count() == 7000  # how fast: benchmarks/, not a timed test


@pytest.mark.network
def test_a_shared_record_reads_as_codec_writes_it(vllm_db: Store) -> None:
    """Every real vllm record, its body spliced back with its snapshot's fields, is the
    text codec writes for it, byte for byte (explanations, links and all)."""
    from errdex.codec import shared_body, shared_record_text

    count = marked = 0
    for record in vllm_db.iter_records():
        snapshot = Snapshot(package=record.package, version=record.version, root=Path("/"),
                            source="", repo_url=record.repo_url, commit=record.commit)  # fmt: skip
        body = shared_body(record.site, record.version, record.commit)
        spliced = shared_record_text(
            body, record.site.location.line, record.package, record.version, record.repo_url,
            record.commit,
        )  # fmt: skip
        assert spliced == dumps(site_to_json(record.site, snapshot)).rstrip("\n"), record.id
        count += 1
        # the body keeps no line number, version or commit of its own
        marked += bool(body.lines) and str(record.commit) not in body.text
    assert count > 6000
    assert marked == count


@pytest.mark.network
def test_records_read_as_utf8_are_what_codec_writes_of_each(
    vllm_db: Store, db_location: str
) -> None:
    """Every real vllm record, stored in each backend and read the fast way (`errdex
    list --json`'s: each body patched as the bytes it is stored as, never decoded), is the
    UTF-8 of what codec writes of the site, and of the typed record read back; a page of
    them is that page; the CLI prints exactly `dumps` of them all."""
    import subprocess
    import sys

    records = list(vllm_db.iter_records())
    first = records[0]
    snapshot = Snapshot(package=first.package, version=first.version, root=Path("/"),
                        source="", repo_url=first.repo_url, commit=first.commit)  # fmt: skip
    sites = [r.site for r in records]
    expected = [dumps(site_to_json(s, snapshot)).rstrip("\n").encode() for s in sites]
    assert len(expected) > 6000
    assert any(not text.isascii() for text in expected)  # UTF-8 that is not ASCII, too
    with open_store(db_location) as store:
        store.write_snapshot(snapshot, sites, files=1, skipped=[], tree_hash="h", extractor="x")
        fast = list(store.iter_records_utf8())
        assert fast == expected
        slow = [dumps(record_to_json(r)).rstrip("\n").encode() for r in store.iter_records()]
        assert slow == expected
        assert list(store.iter_records_utf8(limit=7, offset=3000)) == expected[3000:3007]
    done = subprocess.run(
        [sys.executable, "-m", "errdex", "list", "--json", "--db", db_location],
        capture_output=True,
        check=True,
        timeout=300,
    )
    assert done.stdout == dumps([json.loads(text) for text in expected]).encode()


def test_a_listing_sees_one_state_while_another_writer_replaces_it(
    store: Store, db_location: str
) -> None:
    """Records streamed a few batches at a time (their bodies read apart from the rest
    in SQLite) are those of the snapshot as it was when the listing began, though another
    connection replaces the snapshot and its records midway."""
    snapshot = snap()
    sites = [site(f"{i:016x}", file=f"pkg/m{i % 30}.py", line=i + 2) for i in range(1200)]
    write(store, snapshot, sites)
    expected = list(store.iter_records_utf8())
    listing = store.iter_records_utf8()
    seen = [next(listing)]
    with open_store(db_location) as writer:
        write(writer, snapshot, sites[:10], tree_hash="h2")
    seen += listing
    assert seen == expected and len(seen) == 1200
    assert store.count() == 10
