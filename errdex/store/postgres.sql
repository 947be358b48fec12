-- errdex PostgreSQL schema, version 6: the full schema of a new database (see
-- _schema.py for the versions). Unlike SQLite's, a record that several versions of a
-- package have unchanged is stored once (`records`), and each snapshot lists its
-- records (`members`): a release that changes few errors adds few rows.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE snapshots (
    id BIGSERIAL PRIMARY KEY,
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
    tag TEXT,
    UNIQUE (package, version)
);

CREATE TABLE skipped (
    snapshot_id BIGINT NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    reason TEXT NOT NULL
);
CREATE INDEX skipped_snapshot ON skipped (snapshot_id);

-- The digest of each file of a snapshot as it was indexed, as in SQLite.
CREATE TABLE files (
    snapshot_id BIGINT NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    digest TEXT NOT NULL,
    PRIMARY KEY (snapshot_id, path)
);

-- The match index, as in SQLite (see _match_index.py).
CREATE TABLE templates (
    id BIGSERIAL PRIMARY KEY,
    lits TEXT NOT NULL UNIQUE,
    lit_len INTEGER NOT NULL
);
CREATE TABLE template_keys (
    key TEXT NOT NULL,
    template_id BIGINT NOT NULL,
    PRIMARY KEY (key, template_id)
);
CREATE INDEX template_keys_template ON template_keys (template_id);
CREATE TABLE key_counts (
    key TEXT PRIMARY KEY,
    df INTEGER NOT NULL
);

-- Each distinct record once, as in SQLite: `body` is the site's JSON without its
-- snapshot's fields and with its line numbers as marks (codec.shared_body),
-- zlib-compressed; `digest` the first 16 bytes of its SHA-256 with the package name.
CREATE TABLE records (
    id BIGSERIAL PRIMARY KEY,
    digest BYTEA NOT NULL UNIQUE,
    site_id TEXT NOT NULL,
    file TEXT NOT NULL,
    function TEXT NOT NULL,
    kind TEXT NOT NULL,
    exc_name TEXT NOT NULL,
    exc_qualname TEXT NOT NULL,
    exc_short TEXT NOT NULL,
    message_text TEXT,
    message_literal TEXT,
    title TEXT,
    body BYTEA NOT NULL,
    template_id BIGINT REFERENCES templates (id),
    base TEXT NOT NULL,
    exc_bases TEXT NOT NULL,
    holes TEXT,
    -- search (see _postgres_search.py): the texts of the fields of errdex.rank that
    -- have no column above, each field's words, and all of them (indexed)
    f_solutions TEXT,
    f_inputs TEXT,
    t_message TSVECTOR NOT NULL,
    t_title TSVECTOR NOT NULL,
    t_solutions TSVECTOR NOT NULL,
    t_inputs TSVECTOR NOT NULL,
    t_exception TSVECTOR NOT NULL,
    t_function TSVECTOR NOT NULL,
    t_file TSVECTOR NOT NULL,
    search TSVECTOR NOT NULL
);
CREATE INDEX records_site_id ON records (site_id);
CREATE INDEX records_message_text ON records (message_text);
CREATE INDEX records_message_literal ON records (message_literal);
CREATE INDEX records_template ON records (template_id);
CREATE INDEX records_base ON records (base);
CREATE INDEX records_search ON records USING gin (search);
-- fragments of a message (a part of a word, not only a prefix)
CREATE INDEX records_message_trgm ON records USING gin (message_text gin_trgm_ops);

-- Which records each snapshot has: the site's place in the snapshot (`ord`), its line
-- there (location.line) and the line numbers its body's marks stand for
-- (_common.pack_lines).
CREATE TABLE members (
    snapshot_id BIGINT NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    record_id BIGINT NOT NULL REFERENCES records (id),
    line INTEGER NOT NULL,
    lines BYTEA NOT NULL,
    PRIMARY KEY (snapshot_id, ord)
);
CREATE INDEX members_record ON members (record_id);

CREATE TABLE enrichments (
    site_id TEXT NOT NULL,
    model TEXT NOT NULL,
    created TEXT NOT NULL,
    text TEXT NOT NULL,
    provenance TEXT NOT NULL,
    PRIMARY KEY (site_id, model)
);

CREATE TABLE failures (
    source TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    failed_at TEXT NOT NULL
);
