# The match index of the SQLite store, kept in the same transactions as the sites it
# indexes: every distinct message template once (its normalized literal runs), an
# inverted index from the words and word pairs of those runs to templates, how many
# templates hold each key, and on each site row its template, its file's base name (for
# traceback frames) and the few fields a matcher judges a candidate by. A query reads
# only the rows of its candidates; nothing here reads every record.
from __future__ import annotations

import math
import sqlite3
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from errdex.model import ErrorSite, IndexedSite
from errdex.store._common import index_columns, indexed_site, template_wants
from errdex.text import template_keys

_CHUNK = 500  # values per IN (...) list

# Columns of `sites` the match index adds, in the order site_columns returns them.
SITE_COLUMNS = ("template_id", "base", "exc_bases", "holes")


def chunks(values: Sequence[Any]) -> Iterable[Sequence[Any]]:
    for start in range(0, len(values), _CHUNK):
        yield values[start : start + _CHUNK]


def templates_of(conn: sqlite3.Connection, sites: Sequence[ErrorSite]) -> list[int | None]:
    """The template id of each site (None without a message), creating templates not yet
    stored together with their keys."""
    wanted, keys = template_wants(sites)
    ids: dict[str, int] = {}
    names = list(wanted)
    for chunk in chunks(names):
        marks = ",".join("?" * len(chunk))
        ids.update(conn.execute(f"SELECT lits, id FROM templates WHERE lits IN ({marks})", chunk))
    # Inside the write transaction (BEGIN IMMEDIATE) no one else adds templates: the new
    # ones are numbered here and written in one executemany
    next_id = int(conn.execute("SELECT coalesce(max(id), 0) FROM templates").fetchone()[0]) + 1
    rows: list[tuple[int, str, int]] = []
    postings: list[tuple[str, int]] = []
    for name in names:
        if name in ids:
            continue
        lits = wanted[name]
        ids[name] = next_id
        rows.append((next_id, name, sum(len(lit) for lit in lits)))
        postings.extend((k, next_id) for k in template_keys(lits))
        next_id += 1
    conn.executemany("INSERT INTO templates (id, lits, lit_len) VALUES (?, ?, ?)", rows)
    conn.executemany("INSERT INTO template_keys (key, template_id) VALUES (?, ?)", postings)
    # one upsert a key, not one a posting (vllm: 24,123 keys of 78,877 postings)
    conn.executemany(
        "INSERT INTO key_counts (key, df) VALUES (?, ?)"
        " ON CONFLICT (key) DO UPDATE SET df = df + excluded.df",
        Counter(k for k, _ in postings).items(),
    )
    return [None if key is None else ids[key] for key in keys]


def site_columns(site: ErrorSite, template_id: int | None) -> tuple[Any, ...]:
    """The values of SITE_COLUMNS for one site."""
    return (template_id, *index_columns(site))


def drop_orphans(conn: sqlite3.Connection, template_ids: Collection[int]) -> None:
    """Remove the templates among `template_ids` that no site uses any more, with their
    keys (after their sites were deleted)."""
    gone = [
        tid
        for tid in template_ids
        if conn.execute("SELECT 1 FROM sites WHERE template_id = ? LIMIT 1", (tid,)).fetchone()
        is None
    ]
    for chunk in chunks(gone):
        marks = ",".join("?" * len(chunk))
        conn.execute(
            "UPDATE key_counts SET df = df - (SELECT count(*) FROM template_keys AS tk"
            f" WHERE tk.key = key_counts.key AND tk.template_id IN ({marks}))"
            " WHERE key IN (SELECT key FROM template_keys"
            f" WHERE template_id IN ({marks}))",
            [*chunk, *chunk],
        )
        conn.execute(f"DELETE FROM template_keys WHERE template_id IN ({marks})", chunk)
        conn.execute(f"DELETE FROM templates WHERE id IN ({marks})", chunk)
    conn.execute("DELETE FROM key_counts WHERE df <= 0")


def rebuild(conn: sqlite3.Connection, site_from_record: Any) -> None:
    """Fill the match index from the stored records (a database made before it existed).
    `site_from_record` turns a stored record's text into its ErrorSite."""
    conn.execute("DELETE FROM template_keys")
    conn.execute("DELETE FROM key_counts")
    conn.execute("DELETE FROM templates")
    rows = conn.execute("SELECT id, record FROM sites ORDER BY id").fetchall()
    for chunk in chunks(rows):
        sites = [site_from_record(record) for _, record in chunk]
        tids = templates_of(conn, sites)
        conn.executemany(
            f"UPDATE sites SET {' = ?, '.join(SITE_COLUMNS)} = ? WHERE id = ?",
            [
                (*site_columns(site, tid), row_id)
                for (row_id, _), site, tid in zip(chunk, sites, tids, strict=True)
            ],
        )


# -- queries -----------------------------------------------------------------------------


def template_count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM templates").fetchone()[0])


def key_counts(conn: sqlite3.Connection, keys: Collection[str]) -> dict[str, int]:
    """How many templates hold each of `keys` (keys no template holds are left out)."""
    out: dict[str, int] = {}
    for chunk in chunks(list(keys)):
        marks = ",".join("?" * len(chunk))
        out.update(conn.execute(f"SELECT key, df FROM key_counts WHERE key IN ({marks})", chunk))
    return out


def postings(conn: sqlite3.Connection, keys: Collection[str]) -> dict[str, list[int]]:
    """The templates that hold each of `keys`."""
    out: dict[str, list[int]] = {}
    for chunk in chunks(list(keys)):
        marks = ",".join("?" * len(chunk))
        for key, tid in conn.execute(
            f"SELECT key, template_id FROM template_keys WHERE key IN ({marks})", chunk
        ):
            out.setdefault(key, []).append(tid)
    return out


def masses(conn: sqlite3.Connection, template_ids: Collection[int], total: int) -> dict[int, float]:
    """For each template, the summed rarity (idf over `total` templates) of all its keys:
    the most evidence it can get, by which its score is normalized."""
    out: dict[int, float] = dict.fromkeys(template_ids, 0.0)
    for chunk in chunks(list(template_ids)):
        marks = ",".join("?" * len(chunk))
        for tid, df in conn.execute(
            "SELECT tk.template_id, kc.df FROM template_keys AS tk"
            f" JOIN key_counts AS kc ON kc.key = tk.key WHERE tk.template_id IN ({marks})",
            chunk,
        ):
            out[tid] += math.log((1 + total) / df)
    return out


_INDEXED = (
    "SELECT s.template_id, t.lits, s.site_id, sn.package, sn.version, s.file, s.line,"
    " s.function, s.exc_name, s.exc_qualname, s.exc_bases, s.message_text, s.holes"
    " FROM sites AS s JOIN snapshots AS sn ON sn.id = s.snapshot_id"
    " LEFT JOIN templates AS t ON t.id = s.template_id"
)


def indexed_sites(
    conn: sqlite3.Connection,
    *,
    template_ids: Collection[int] = (),
    bases: Collection[str] = (),
    package: str | None = None,
) -> list[IndexedSite]:
    """Every stored row (each version) of the sites that use one of `template_ids` or sit
    in a file named one of `bases`, in one of `package`'s versions if given."""
    hits: set[tuple[str, str]] = set()
    filters: list[tuple[str, list[Any]]] = [
        ("s.template_id", list(template_ids)),
        ("s.base", list(bases)),
    ]
    for column, values in filters:
        for chunk in chunks(values):
            marks = ",".join("?" * len(chunk))
            sql = (
                "SELECT DISTINCT sn.package, s.site_id FROM sites AS s"
                f" JOIN snapshots AS sn ON sn.id = s.snapshot_id WHERE {column} IN ({marks})"
            )
            params: list[Any] = list(chunk)
            if package is not None:  # `+`: the planner must not walk the package's rows
                sql += " AND +sn.package = ?"
                params.append(package)
            hits.update(conn.execute(sql, params))
    out: list[IndexedSite] = []
    ids = sorted({site_id for _, site_id in hits})
    for chunk in chunks(ids):
        marks = ",".join("?" * len(chunk))
        for row in conn.execute(
            f"{_INDEXED} WHERE s.site_id IN ({marks}) ORDER BY s.id", chunk
        ).fetchall():
            if (row[3], row[2]) in hits:
                out.append(indexed_site(row))
    return out
