# The versioned schema of both databases, in one place: SCHEMA_VERSION, and for each
# version n the step that takes a database of schema n to n + 1, written once per SQL
# dialect. A new database is made at SCHEMA_VERSION directly from its dialect's full
# schema (schema.sql for SQLite, postgres.sql for PostgreSQL); keep those in step with
# the steps here. PostgreSQL support began at version 4, so its steps start there.
from __future__ import annotations

from dataclasses import dataclass

SCHEMA_VERSION = 7


@dataclass(frozen=True, slots=True, kw_only=True)
class Step:
    """The SQL that takes a database from one schema version to the next."""

    sqlite: str
    # PostgreSQL's SQL of the step (None: no PostgreSQL database had this version)
    postgresql: str | None = None
    # the match index must be filled again from the stored records after this step
    rebuild_match_index: bool = False
    # the sites are stored again in records and members after the last step, by the
    # backend's Python (reshape_records: the bodies come from codec)
    share_records: bool = False


MIGRATIONS: dict[int, Step] = {
    1: Step(
        sqlite="""
CREATE TABLE enrichments (
    site_id TEXT NOT NULL,
    model TEXT NOT NULL,
    created TEXT NOT NULL,
    text TEXT NOT NULL,
    provenance TEXT NOT NULL,
    PRIMARY KEY (site_id, model)
);
""",
    ),
    # The match index: its tables and the columns of sites; filled from the records by
    # _match_index.rebuild right after (it needs Python, not SQL).
    2: Step(
        sqlite="""
ALTER TABLE sites ADD COLUMN template_id INTEGER;
ALTER TABLE sites ADD COLUMN base TEXT;
ALTER TABLE sites ADD COLUMN exc_bases TEXT;
ALTER TABLE sites ADD COLUMN holes TEXT;
CREATE INDEX sites_template ON sites (template_id);
CREATE INDEX sites_base ON sites (base);
CREATE TABLE templates (id INTEGER PRIMARY KEY, lits TEXT NOT NULL UNIQUE,
    lit_len INTEGER NOT NULL);
CREATE TABLE template_keys (key TEXT NOT NULL, template_id INTEGER NOT NULL,
    PRIMARY KEY (key, template_id)) WITHOUT ROWID;
CREATE INDEX template_keys_template ON template_keys (template_id);
CREATE TABLE key_counts (key TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
""",
        rebuild_match_index=True,
    ),
    # The failures of `errdex index-many`, one row per source, so that a batch resumed
    # later still shows why a source was left out; and each distinct record stored once
    # (records, members), `sites` becoming a view over them: made by step 4's move.
    3: Step(
        sqlite="""
CREATE TABLE failures (
    source TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    failed_at TEXT NOT NULL
);
""",
        share_records=True,
    ),
    # A record that only moved (its line numbers, and what derives from them) is still
    # one record: its body keeps its line numbers as marks, filled in from its member's
    # row; bodies compressed; search rows per body. The rows move in Python
    # (reshape_records of each backend), which makes records, members and the search
    # index anew from the sites as the older schema stored them.
    4: Step(sqlite="", postgresql="", share_records=True),
    # A release's git tag, for source links when it names no commit (sources/tags.py).
    5: Step(
        sqlite="ALTER TABLE snapshots ADD COLUMN tag TEXT;",
        postgresql="ALTER TABLE snapshots ADD COLUMN tag TEXT;",
    ),
    # The digest of each file of a snapshot, as it was indexed: what the hook compares an
    # installed file with (a snapshot written before has none, and is taken as it is).
    6: Step(
        sqlite="""
CREATE TABLE files (
    snapshot_id INTEGER NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    digest TEXT NOT NULL,
    PRIMARY KEY (snapshot_id, path)
) WITHOUT ROWID;
""",
        postgresql="""
CREATE TABLE files (
    snapshot_id BIGINT NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    digest TEXT NOT NULL,
    PRIMARY KEY (snapshot_id, path)
);
""",
    ),
}


def full_schema(dialect: str) -> str:
    """The SQL that makes a new database of `dialect` ("sqlite" or "postgresql")."""
    from importlib import resources

    name = {"sqlite": "schema.sql", "postgresql": "postgres.sql"}[dialect]
    return resources.files("errdex.store").joinpath(name).read_text()
