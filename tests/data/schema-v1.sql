-- errdex SQLite schema, version 1: the full schema of a new database.
-- An existing database of an older version reaches this one through the migrations
-- in _sqlite.py instead; keep the two in step when this file changes.

CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- One row per indexed (package, version); re-indexing replaces the row and its sites.
CREATE TABLE snapshots (
    id INTEGER PRIMARY KEY,
    package TEXT NOT NULL,
    version TEXT NOT NULL,
    source TEXT NOT NULL,
    repo_url TEXT,
    commit_id TEXT,
    date TEXT,
    files INTEGER NOT NULL,
    sites INTEGER NOT NULL,
    tree_hash TEXT NOT NULL,
    extractor TEXT NOT NULL,
    indexed_at TEXT NOT NULL,
    UNIQUE (package, version)
);

CREATE TABLE skipped (
    snapshot_id INTEGER NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    reason TEXT NOT NULL
);
CREATE INDEX skipped_snapshot ON skipped (snapshot_id);

-- One row per error site: the full JSON record plus the columns queries filter on.
-- `id` is an INTEGER PRIMARY KEY so that it survives VACUUM: sites_fts rows share it.
CREATE TABLE sites (
    id INTEGER PRIMARY KEY,
    snapshot_id INTEGER NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
    site_id TEXT NOT NULL,
    file TEXT NOT NULL,
    line INTEGER NOT NULL,
    function TEXT NOT NULL,
    kind TEXT NOT NULL,
    exc_name TEXT NOT NULL,
    exc_qualname TEXT NOT NULL,
    exc_short TEXT NOT NULL,        -- last dotted component of the qualname
    message_text TEXT,              -- message.text; NULL when the site has no message
    message_literal TEXT,           -- static messages only: literal text, stripped
    title TEXT,                     -- NULL until the explain stage adds titles
    record TEXT NOT NULL            -- the JSON record, as codec.site_to_json made it
);
CREATE INDEX sites_snapshot_order ON sites (snapshot_id, file, line);
CREATE INDEX sites_site_id ON sites (site_id);
CREATE INDEX sites_message_text ON sites (message_text);
CREATE INDEX sites_message_literal ON sites (message_literal);

-- Full-text search; rowid = sites.id, written in the same transaction as sites.
-- A derived index: a database whose sites_fts has other columns gets it rebuilt from
-- `sites` when opened (see _sqlite.FTS_COLUMNS), so its shape needs no migration.
CREATE VIRTUAL TABLE sites_fts USING fts5 (
    message, title, explanation, inputs, exception, function, file
);
