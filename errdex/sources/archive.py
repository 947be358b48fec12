# Safe extraction of sdists and wheels (tar.gz, tar.bz2, tar.xz, tar, zip, whl).
#
# Archives come from strangers, so every member is checked before a byte is written:
# - names: no absolute paths, drive letters or `..` components;
# - links (symlinks, hardlinks, zip symlinks): never created. A link whose target leaves
#   the archive (absolute, or `..` past the top) raises UnsafeArchiveError, as only a
#   hostile archive has one; a link that stays inside is skipped (the file it points to
#   is extracted under its own name anyway);
# - device files, FIFOs and other special members are skipped;
# - caps on the member count, each member's size and the total size, checked against
#   the archive's index (a zip's central directory, every tar header) before the first
#   byte is written, so a bomb of tiny members is refused at once, and again against the
#   bytes actually written (zip headers can lie).
# Tar members also pass Python's own `tarfile.data_filter`. Files are written 0644 and
# directories 0755 whatever the archive says. A failure to write says what it was (no
# space left, a name too long, a member that is a file and a folder), not that the
# archive is bad; see sources/reading.py.
from __future__ import annotations

import posixpath
import stat
import tarfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from errdex.errors import PathClashError, SourceError, UnsafeArchiveError
from errdex.sources.reading import shown_name, writing

CHUNK = 1 << 20


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """Caps on what one archive may unpack to."""

    max_members: int = 200_000
    max_member_bytes: int = 512 * 1024**2
    max_total_bytes: int = 2 * 1024**3


def extract_archive(
    archive: Path,
    target: Path,
    *,
    limits: Limits | None = None,
    only: Callable[[str], bool] | None = None,
) -> None:
    """Extract `archive` into the existing directory `target`, checking every member.

    Raises UnsafeArchiveError for a member that escapes `target`, links outside it or
    passes a cap in `limits` (counts and declared sizes are checked before anything is
    written), NoSpaceError / NameTooLongError / CacheWriteError when `target` cannot take
    a member, PathClashError when a member is a file where another is a folder, and
    SourceError when the file is not a readable archive.
    Whatever was written before an error stays in `target`: extract into a temporary
    directory (see cache.materialise) and discard it on error. With `only`, a zip's files
    whose names it refuses are left out, unread and uncounted (folders are kept).
    """
    limits = limits or Limits()
    name = archive.name.lower()
    try:
        if name.endswith((".zip", ".whl")):
            with zipfile.ZipFile(archive) as zf:
                infos = [i for i in zf.infolist() if only is None or i.is_dir() or only(i.filename)]
                _check_index(
                    archive, [(i.filename, i.file_size, not i.is_dir()) for i in infos], limits
                )
                _extract_zip(zf, infos, archive, target, limits)
        else:
            with tarfile.open(archive, "r:*") as tf:
                members = _tar_index(tf, archive, limits)
                _extract_tar(tf, members, archive, target, limits)
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as exc:
        raise SourceError(
            f"cannot read the archive {archive}: {exc}; delete it from the cache and retry"
        ) from exc


def _check_index(archive: Path, entries: list[tuple[str, int, bool]], limits: Limits) -> None:
    """Refuse an archive whose index (name, declared size, is a file) passes a cap."""
    if len(entries) > limits.max_members:
        raise _too_many(archive, limits)
    total = 0
    for name, size, is_file in entries:
        if not is_file:
            continue
        if size > limits.max_member_bytes:
            raise UnsafeArchiveError(
                f"{archive.name}: member {name!r} unpacks to {size:,} bytes, over the "
                f"cap of {limits.max_member_bytes:,}; refusing to extract it"
            )
        total += size
        if total > limits.max_total_bytes:
            raise _too_big(archive, limits)


def _tar_index(tf: tarfile.TarFile, archive: Path, limits: Limits) -> list[tarfile.TarInfo]:
    """Every member of `tf`, read from the headers alone (nothing is written), refused as
    soon as the count or the declared sizes pass a cap."""
    members: list[tarfile.TarInfo] = []
    total = 0
    for member in tf:
        members.append(member)
        if len(members) > limits.max_members:
            raise _too_many(archive, limits)
        if member.isfile():
            if member.size > limits.max_member_bytes:
                _check_index(archive, [(member.name, member.size, True)], limits)
            total += member.size
            if total > limits.max_total_bytes:
                raise _too_big(archive, limits)
    return members


def _too_many(archive: Path, limits: Limits) -> UnsafeArchiveError:
    return UnsafeArchiveError(
        f"{archive.name} has more than {limits.max_members:,} members; "
        "refusing to extract it (a cap against archive bombs)"
    )


def _too_big(archive: Path, limits: Limits) -> UnsafeArchiveError:
    return UnsafeArchiveError(
        f"{archive.name} unpacks to more than {limits.max_total_bytes:,} "
        "bytes; refusing to extract it (a cap against archive bombs)"
    )


class _Budget:
    """Counts members and bytes against the caps."""

    def __init__(self, archive: Path, limits: Limits) -> None:
        self.archive = archive
        self.limits = limits
        self.members = 0
        self.total = 0

    def member(self) -> None:
        self.members += 1
        if self.members > self.limits.max_members:
            raise _too_many(self.archive, self.limits)

    def size(self, member: str, size: int) -> None:
        if size > self.limits.max_member_bytes:
            raise UnsafeArchiveError(
                f"{self.archive.name}: member {member!r} unpacks to {size:,} bytes, over the "
                f"cap of {self.limits.max_member_bytes:,}; refusing to extract it"
            )
        if self.total + size > self.limits.max_total_bytes:
            raise _too_big(self.archive, self.limits)

    def add(self, size: int) -> None:
        self.total += size


def safe_relpath(name: str, archive: Path) -> str:
    """Return `name` as a clean relative POSIX path, or raise UnsafeArchiveError."""
    unified = name.replace("\\", "/")
    if unified.startswith("/") or (len(unified) > 1 and unified[1] == ":"):
        raise UnsafeArchiveError(
            f"{archive.name}: member {name!r} has an absolute path; refusing to extract it"
        )
    parts = [part for part in unified.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise UnsafeArchiveError(
            f"{archive.name}: member {name!r} climbs out of the archive with '..'; "
            "refusing to extract it"
        )
    if any("\x00" in part for part in parts):
        raise UnsafeArchiveError(f"{archive.name}: member {name!r} has a NUL byte in its name")
    return "/".join(parts)


def _check_link(name: str, link_target: str, archive: Path) -> None:
    """Raise UnsafeArchiveError when a link at `name` points outside the archive."""
    target = link_target.replace("\\", "/")
    escapes = target.startswith("/") or (len(target) > 1 and target[1] == ":")
    if not escapes:
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(name), target))
        escapes = joined == ".." or joined.startswith("../")
    if escapes:
        raise UnsafeArchiveError(
            f"{archive.name}: member {name!r} is a link to {link_target!r}, outside the "
            "archive; refusing to extract it"
        )


def _mkdir(folder: Path, rel: str, archive: Path) -> None:
    """Make `folder` (and its parents) for member `rel`, saying why when it cannot be."""
    what = f"member {shown_name(rel)!r} of {archive.name}"
    with writing(folder, what):
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError) as exc:
            raise PathClashError(
                f"{archive.name}: member {shown_name(rel)!r} needs a folder where the archive "
                "already put a file; cannot extract it",
                shown_name(rel),
            ) from exc


def _write(source: IO[bytes], dest: Path, declared: int, rel: str, budget: _Budget) -> None:
    _mkdir(dest.parent, rel, budget.archive)
    written = 0
    with writing(dest, f"member {shown_name(rel)!r} of {budget.archive.name}"):
        if dest.is_dir():
            raise PathClashError(
                f"{budget.archive.name}: member {shown_name(rel)!r} is a file where the "
                "archive already put a folder; cannot extract it",
                shown_name(rel),
            )
        with dest.open("wb") as out:
            while chunk := source.read(CHUNK):
                written += len(chunk)
                if written > declared:  # the header lied about the size
                    raise UnsafeArchiveError(
                        f"{budget.archive.name}: member {rel!r} unpacks to more than the "
                        f"{declared:,} bytes its header declares; refusing to extract it"
                    )
                out.write(chunk)
        dest.chmod(0o644)
    budget.add(written)


def _extract_tar(
    tf: tarfile.TarFile,
    members: list[tarfile.TarInfo],
    archive: Path,
    target: Path,
    limits: Limits,
) -> None:
    budget = _Budget(archive, limits)
    data_filter = getattr(tarfile, "data_filter", None)  # Python >= 3.11.4
    for member in members:
        budget.member()
        rel = safe_relpath(member.name, archive)
        if member.issym():  # the target is relative to the link's own directory
            _check_link(rel, member.linkname, archive)
            continue
        if member.islnk():  # the target is a member name, relative to the archive's top
            _check_link("top", member.linkname, archive)
            continue
        if not (member.isfile() or member.isdir()) or not rel:
            continue  # devices, FIFOs, the archive's "." entry
        if data_filter is not None:
            try:
                data_filter(member, str(target))
            except tarfile.FilterError as exc:
                raise UnsafeArchiveError(
                    f"{archive.name}: member {member.name!r} is unsafe ({exc}); "
                    "refusing to extract it"
                ) from exc
        dest = target / rel
        if member.isdir():
            _mkdir(dest, rel, archive)
            continue
        budget.size(rel, member.size)
        source = tf.extractfile(member)
        if source is None:
            continue
        with source:
            _write(source, dest, member.size, rel, budget)


def _extract_zip(
    zf: zipfile.ZipFile,
    infos: list[zipfile.ZipInfo],
    archive: Path,
    target: Path,
    limits: Limits,
) -> None:
    budget = _Budget(archive, limits)
    for info in infos:
        budget.member()
        rel = safe_relpath(info.filename, archive)
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            budget.size(rel, info.file_size)
            with zf.open(info) as member:  # a link target is short: read no more than that
                link = member.read(4096).decode("utf-8", "replace")
            _check_link(rel, link, archive)
            continue
        if info.is_dir() or not rel:
            _mkdir(target / rel, rel, archive)
            continue
        if stat.S_IFMT(mode) and not stat.S_ISREG(mode):
            continue  # a device or FIFO recorded by a Unix zip tool
        if info.flag_bits & 0x1:
            raise SourceError(
                f"{archive.name}: member {info.filename!r} is encrypted; cannot extract it"
            )
        budget.size(rel, info.file_size)
        with zf.open(info) as source:
            _write(source, target / rel, info.file_size, rel, budget)
