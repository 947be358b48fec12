# The match index of the PostgreSQL store: the same tables and answers as the SQLite
# store's (see _match_index.py), written in the transaction of the snapshot it indexes,
# with arrays where SQLite needs chunked IN lists. A site's part of the index lives on
# its row of `records`, shared by the versions that have it unchanged.
from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from typing import Any

from psycopg import Connection

from errdex.model import ErrorSite, IndexedSite
from errdex.store._common import indexed_site, template_wants
from errdex.text import template_keys


def templates_of(conn: Connection[Any], sites: Sequence[ErrorSite]) -> list[int | None]:
    """The template id of each site (None without a message), creating templates not yet
    stored together with their keys."""
    wanted, keys = template_wants(sites)
    names = list(wanted)
    ids: dict[str, int] = dict(
        conn.execute("SELECT lits, id FROM templates WHERE lits = ANY(%s)", (names,)).fetchall()
    )
    new = [name for name in names if name not in ids]
    if new:
        lengths = [sum(len(lit) for lit in wanted[name]) for name in new]
        ids.update(
            conn.execute(
                "INSERT INTO templates (lits, lit_len)"
                " SELECT * FROM unnest(%s::text[], %s::integer[]) RETURNING lits, id",
                (new, lengths),
            ).fetchall()
        )
        posting_keys: list[str] = []
        posting_ids: list[int] = []
        for name in new:
            for key in template_keys(wanted[name]):
                posting_keys.append(key)
                posting_ids.append(ids[name])
        conn.execute(
            "INSERT INTO template_keys (key, template_id)"
            " SELECT * FROM unnest(%s::text[], %s::bigint[])",
            (posting_keys, posting_ids),
        )
        conn.execute(
            "INSERT INTO key_counts (key, df) SELECT k, count(*) FROM unnest(%s::text[]) AS k"
            " GROUP BY k ON CONFLICT (key) DO UPDATE SET df = key_counts.df + EXCLUDED.df",
            (posting_keys,),
        )
    return [None if key is None else ids[key] for key in keys]


def drop_orphans(conn: Connection[Any], template_ids: Collection[int]) -> None:
    """Remove the templates among `template_ids` that no record uses any more, with
    their keys (after those records were deleted)."""
    gone = [
        row[0]
        for row in conn.execute(
            "SELECT id FROM templates AS t WHERE id = ANY(%s)"
            " AND NOT EXISTS (SELECT 1 FROM records AS r WHERE r.template_id = t.id)",
            (list(template_ids),),
        )
    ]
    if not gone:
        return
    conn.execute(
        "UPDATE key_counts AS kc SET df = kc.df - c.n FROM (SELECT key, count(*) AS n"
        " FROM template_keys WHERE template_id = ANY(%s) GROUP BY key) AS c WHERE kc.key = c.key",
        (gone,),
    )
    conn.execute("DELETE FROM template_keys WHERE template_id = ANY(%s)", (gone,))
    conn.execute("DELETE FROM templates WHERE id = ANY(%s)", (gone,))
    conn.execute("DELETE FROM key_counts WHERE df <= 0")


# -- queries -----------------------------------------------------------------------------


def template_count(conn: Connection[Any]) -> int:
    row = conn.execute("SELECT count(*) FROM templates").fetchone()
    assert row is not None
    return int(row[0])


def key_counts(conn: Connection[Any], keys: Collection[str]) -> dict[str, int]:
    """How many templates hold each of `keys` (keys no template holds are left out)."""
    rows = conn.execute("SELECT key, df FROM key_counts WHERE key = ANY(%s)", (list(keys),))
    return {key: int(df) for key, df in rows}


def postings(conn: Connection[Any], keys: Collection[str]) -> dict[str, list[int]]:
    """The templates that hold each of `keys`."""
    out: dict[str, list[int]] = {}
    for key, tid in conn.execute(
        "SELECT key, template_id FROM template_keys WHERE key = ANY(%s)", (list(keys),)
    ):
        out.setdefault(key, []).append(tid)
    return out


def masses(conn: Connection[Any], template_ids: Collection[int], total: int) -> dict[int, float]:
    """For each template, the summed rarity (idf over `total` templates) of its keys."""
    out: dict[int, float] = dict.fromkeys(template_ids, 0.0)
    for tid, df in conn.execute(
        "SELECT tk.template_id, kc.df FROM template_keys AS tk"
        " JOIN key_counts AS kc ON kc.key = tk.key WHERE tk.template_id = ANY(%s)",
        (list(template_ids),),
    ):
        out[tid] += math.log((1 + total) / df)
    return out


_INDEXED = (
    "SELECT r.template_id, t.lits, r.site_id, sn.package, sn.version, r.file, m.line,"
    " r.function, r.exc_name, r.exc_qualname, r.exc_bases, r.message_text, r.holes"
    " FROM records AS r JOIN members AS m ON m.record_id = r.id"
    " JOIN snapshots AS sn ON sn.id = m.snapshot_id"
    " LEFT JOIN templates AS t ON t.id = r.template_id"
)


def indexed_sites(
    conn: Connection[Any],
    *,
    template_ids: Collection[int] = (),
    bases: Collection[str] = (),
    package: str | None = None,
) -> list[IndexedSite]:
    """Every stored row (each version) of the sites that use one of `template_ids` or sit
    in a file named one of `bases`, in one of `package`'s versions if given; in the
    order they were written, as the SQLite store gives them."""
    sql = (
        "SELECT DISTINCT sn.package, r.site_id FROM records AS r"
        " JOIN members AS m ON m.record_id = r.id JOIN snapshots AS sn ON sn.id = m.snapshot_id"
        " WHERE (r.template_id = ANY(%s) OR r.base = ANY(%s))"
    )
    params: list[Any] = [list(template_ids), list(bases)]
    if package is not None:
        sql += " AND sn.package = %s"
        params.append(package)
    hits = {(pkg, site_id) for pkg, site_id in conn.execute(sql, params)}
    if not hits:
        return []
    ids = sorted({site_id for _, site_id in hits})
    rows = conn.execute(f"{_INDEXED} WHERE r.site_id = ANY(%s) ORDER BY sn.id, m.ord", (ids,))
    return [indexed_site(row) for row in rows if (row[3], row[2]) in hits]
