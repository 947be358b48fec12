-- errdex SQLite schema, version 6: the full schema of a new database.
-- An existing database of an older version reaches this one through the migrations
-- in _schema.py instead; keep the two in step when this file changes.

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
    tag TEXT,                       -- the release's git tag, when links point at it
    UNIQUE (package, version)
);

CREATE TABLE skipped (
    snapshot_id INTEGER NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    reason TEXT NOT NULL
);
CREATE INDEX skipped_snapshot ON skipped (snapshot_id);

-- The digest of each file of a snapshot as it was indexed (errdex.identity.file_digest):
-- what the hook compares an installed file with before it explains a raise in it.
CREATE TABLE files (
    snapshot_id INTEGER NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    digest TEXT NOT NULL,
    PRIMARY KEY (snapshot_id, path)
) WITHOUT ROWID;

-- Each distinct record once: `body` is the site's JSON without its snapshot's fields
-- and with its line numbers as marks (codec.shared_body), zlib-compressed; `digest` the
-- first 16 bytes of its SHA-256 with the package name. A record that several versions
-- have unchanged, or only moved, is stored once. `id` is an INTEGER PRIMARY KEY so that
-- it survives VACUUM: sites_fts rows share it.
CREATE TABLE records (
    id INTEGER PRIMARY KEY,
    digest BLOB NOT NULL UNIQUE,
    site_id TEXT NOT NULL,
    file TEXT NOT NULL,
    function TEXT NOT NULL,
    kind TEXT NOT NULL,
    exc_name TEXT NOT NULL,
    exc_qualname TEXT NOT NULL,
    exc_short TEXT NOT NULL,        -- last dotted component of the qualname
    message_text TEXT,              -- message.text; NULL when the site has no message
    message_literal TEXT,           -- static messages only: literal text, stripped
    title TEXT,                     -- NULL until the explain stage adds titles
    body BLOB NOT NULL,             -- zlib of codec.shared_body's text
    -- the match index's part of a site (see _match_index.py)
    template_id INTEGER,            -- templates.id; NULL when the site has no message
    base TEXT,                      -- the file's base name, for traceback frames
    exc_bases TEXT,                 -- qualified names of the exception's bases, space-joined
    holes TEXT,                     -- JSON: hole expressions of each group between literals
    -- the texts of the search fields that have no column above (_common.search_texts)
    f_solutions TEXT,
    f_inputs TEXT
);
CREATE INDEX records_site_id ON records (site_id);
CREATE INDEX records_message_text ON records (message_text);
CREATE INDEX records_message_literal ON records (message_literal);
CREATE INDEX records_template ON records (template_id);
CREATE INDEX records_base ON records (base);

-- Which records each snapshot has: the site's place in the snapshot (`ord`), its line
-- there (location.line) and the line numbers its body's marks stand for
-- (_common.pack_lines).
CREATE TABLE members (
    snapshot_id INTEGER NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    record_id INTEGER NOT NULL REFERENCES records (id),
    line INTEGER NOT NULL,
    lines BLOB NOT NULL,
    PRIMARY KEY (snapshot_id, ord)
) WITHOUT ROWID;
CREATE INDEX members_record ON members (record_id);

-- Every site of every snapshot: a record with the snapshot that has it (`id` is the
-- record's), as the queries and the match index read sites.
CREATE VIEW sites AS
    SELECT m.snapshot_id AS snapshot_id, m.ord AS ord, m.line AS line, m.lines AS lines, r.*
    FROM members AS m JOIN records AS r ON r.id = m.record_id;

-- Full-text search; rowid = records.id, written in the same transaction as records.
-- A derived index, made when the store opens (_sqlite._FTS_CREATE, from FTS_COLUMNS):
-- a database whose sites_fts has other columns or tokenizer gets it rebuilt from
-- `records`, so its shape needs no migration.

-- Answers of a language model about one error (errdex enrich), kept beside the static
-- explanation, never over it; by error id (so across versions) and model.
CREATE TABLE enrichments (
    site_id TEXT NOT NULL,
    model TEXT NOT NULL,
    created TEXT NOT NULL,
    text TEXT NOT NULL,
    provenance TEXT NOT NULL,
    PRIMARY KEY (site_id, model)
);

-- The match index: each distinct message template once (its normalized literal runs, as
-- JSON), the words and word pairs of those runs (template_keys), and how many templates
-- hold each key (key_counts). Written and removed with the sites that use them.
CREATE TABLE templates (
    id INTEGER PRIMARY KEY,
    lits TEXT NOT NULL UNIQUE,
    lit_len INTEGER NOT NULL
);
CREATE TABLE template_keys (
    key TEXT NOT NULL,
    template_id INTEGER NOT NULL,
    PRIMARY KEY (key, template_id)
) WITHOUT ROWID;
CREATE INDEX template_keys_template ON template_keys (template_id);
CREATE TABLE key_counts (
    key TEXT PRIMARY KEY,
    df INTEGER NOT NULL
) WITHOUT ROWID;

-- The sources `errdex index-many` could not index, with why (the last attempt's reason);
-- a source's row goes when it is indexed.
CREATE TABLE failures (
    source TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    failed_at TEXT NOT NULL
);
