# Store.search, which the site's search and package filters stand on: FTS5 (SQLite) or
# PostgreSQL's full-text search ranked, words marked, user text never read as query
# syntax, and an older search index rebuilt in place.
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from errdex import rank
from errdex.codec import search_to_json
from errdex.store import Store, open_store
from tests.web_support import index_evil


def search(store: Store, text: str, **filters: Any) -> dict[str, Any]:
    return search_to_json(store.search(text, **filters))


def test_search_filters_pages_and_marks(tmp_path: Path, db_location: str) -> None:
    with index_evil(tmp_path / "src", db_location) as store:
        found = search(store, "must", package="evil")
        assert found["total"] == 2
        assert search(store, "must", exception="TypeError")["total"] == 1
        assert search(store, "must", package="other")["total"] == 0
        assert len(search(store, "must", limit=1, offset=1)["hits"]) == 1
        assert search(store, "must", offset=5)["hits"] == []
        hit = search(store, "handsh")["hits"][0]  # the last word is a prefix
        assert {"text": "handshake", "match": True} in hit["highlight"]["message"]
        assert search(store, "   ")["total"] == 0
        assert search(store, '"unbalanced OR (NEAR')["total"] == 0
        assert search(store, "'qq' & !port:* <-> (must")["total"] == 0  # nor tsquery syntax
        first = search(store, "must", message_only=True)["hits"]
        assert first and all("must" in h["record"]["message"]["text"] for h in first)


def test_postgresql_finds_a_fragment_inside_a_word(tmp_path: Path, postgres_db: str) -> None:
    with index_evil(tmp_path / "src", postgres_db) as store:
        found = search(store, "andshak")
        assert found["total"] == 1
        assert {"text": "andshak", "match": True} in found["hits"][0]["highlight"]["message"]


def test_an_older_search_index_is_rebuilt(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    index_evil(tmp_path / "src", db).close()
    with sqlite3.connect(db) as raw:  # the first schema's search index, five columns
        raw.execute("DROP TABLE sites_fts")
        raw.execute(
            "CREATE VIRTUAL TABLE sites_fts USING fts5 (message, title, exception, function, file)"
        )
    raw.close()
    with open_store(db) as store:
        assert store.search("handshake").total == 1
        assert store.search("fast slow").total >= 1
    with sqlite3.connect(db) as raw:  # rebuilt with the fields search ranks by
        columns = tuple(r[1] for r in raw.execute("PRAGMA table_info(sites_fts)"))
    raw.close()
    assert columns == rank.FIELDS


def test_postgresql_searches_by_the_same_rule(tmp_path: Path, postgres_db: str) -> None:
    """The same errors in the same order with the same marks, on both backends."""
    with (
        index_evil(tmp_path / "a", tmp_path / "db.sqlite") as sqlite_store,
        index_evil(tmp_path / "b", postgres_db) as postgres_store,
    ):
        for query in ("must", "handsh", "port must", "timeout short", "evil", "toml path"):
            for message_only in (False, True):
                answers = []
                for store in (sqlite_store, postgres_store):
                    found = store.search(query, message_only=message_only)
                    answers.append(
                        (found.total, [(h.record.id, h.score, h.highlight) for h in found.hits])
                    )
                assert answers[0] == answers[1], query
        assert sqlite_store.search_fields() == postgres_store.search_fields()
