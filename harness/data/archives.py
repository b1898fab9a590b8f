"""Archives in a dataset release (.zip, .tar, .tar.gz/.tgz, .tar.bz2/.tbz2, .tar.xz/.txz), unpacked safely into
the cache on first use.

`unpack_archive(path)` returns the folder holding the archive's files, `<cache>/archives/<key>/`, where the key
is the sha256 of the archive's resolved path, size and modification time (a hub snapshot's file resolves to
its content-addressed blob, so a new revision unpacks anew and the same one is unpacked once). Every member
is checked before anything is written, and the archive is refused whole (`ArchiveError`, naming the archive
and the member) when a member would land outside the target: an absolute path or drive, a `..` that climbs
out, a symlink or hardlink whose target is outside, or anything that is not a file, folder or link (devices,
FIFOs). Links are followed as the unpacked tree would follow them: every member's folder, and every link's
target, is resolved through the links of the members before it (`_Tree`), so a chain such as `l1 -> .`,
`l2 -> l1/..` (each harmless as written) or a member written through a link that leaves is refused as well.
Unpacking goes to a temporary folder beside the target, renamed into place when complete (under a
file lock, so concurrent runs unpack once); a killed unpack leaves no half folder behind as the result.

Rows may name files inside an unpacked folder by absolute path: `is_unpacked(path)` tells the core's media
check that such a path is one the harness itself wrote (docs/reliability.md, "Symlinks and trust").
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import shutil
import stat
import tarfile
import tempfile
import zipfile
from pathlib import Path
from typing import Optional

from harness.cache import default_cache_dir
from harness.cache.locking import exclusive_lock
from harness.errors import DataError

ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")
_FORMAT_VERSION = 1  # bump when what an unpacked folder holds changes
_unpacked: set[Path] = set()  # folders returned in this process (besides those under the default cache)


class ArchiveError(DataError):
    """An archive that cannot be unpacked safely or at all (the message names it and the member)."""


def is_archive(path: Path | str) -> bool:
    """Whether the file name ends in one of ARCHIVE_SUFFIXES (case-insensitive)."""
    return str(path).lower().endswith(ARCHIVE_SUFFIXES)


def archive_stem(path: Path | str) -> str:
    """The name without its archive suffix ('videos.tar.gz' -> 'videos')."""
    name = Path(path).name
    suffix = next((s for s in ARCHIVE_SUFFIXES if name.lower().endswith(s)), "")
    return name[: len(name) - len(suffix)] if suffix else name


def archives_dir(cache_dir: Optional[Path] = None) -> Path:
    """Where archives are unpacked: `<cache_dir or the default cache>/archives`."""
    return Path(cache_dir or default_cache_dir()) / "archives"


def _key(archive: Path) -> str:
    real = archive.resolve()
    st = real.stat()
    text = f"{_FORMAT_VERSION}\0{real}\0{st.st_size}\0{st.st_mtime_ns}"
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def _inside(name: str, what: str, archive: Path) -> str:
    """The member name normalised, or ArchiveError when it is absolute or climbs out of the target."""
    text = name.replace("\\", "/")
    if text.startswith("/") or (len(text) > 1 and text[1] == ":") or "\0" in text:
        raise ArchiveError(f"archive {archive}: {what} '{name}' is an absolute path; refusing to unpack it")
    norm = posixpath.normpath(text)
    if norm == ".." or norm.startswith("../"):
        raise ArchiveError(
            f"archive {archive}: {what} '{name}' climbs out of the folder ('..'); refusing to unpack it"
        )
    return norm


#: the most links one path may pass through before it counts as a loop (the kernel's own limit is 40)
_MAX_LINK_HOPS = 40


class _Tree:
    """The links among the members seen so far, to resolve a path as the unpacked folder would."""

    def __init__(self, archive: Path) -> None:
        self.archive = archive
        self.links: dict[str, str] = {}  # normalised member name -> symlink target as written

    def resolve(self, path: str, member: str, hops: int = 0) -> list[str]:
        """`path` (relative to the folder) with every earlier link followed; ArchiveError when it leaves."""
        out: list[str] = []
        for part in path.replace("\\", "/").split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if not out:
                    raise ArchiveError(
                        f"archive {self.archive}: member '{member}' resolves outside the folder through the "
                        "links before it; refusing to unpack it"
                    )
                out.pop()
                continue
            out.append(part)
            target = self.links.get("/".join(out))
            if target is not None:
                if hops >= _MAX_LINK_HOPS:
                    raise ArchiveError(
                        f"archive {self.archive}: member '{member}' is in a loop of links; refusing it"
                    )
                if target.startswith(("/", "\\")) or (len(target) > 1 and target[1] == ":"):
                    raise ArchiveError(
                        f"archive {self.archive}: member '{member}' passes through a link to the absolute path "
                        f"'{target}'; refusing it"
                    )
                out = self.resolve("/".join(out[:-1] + [target]), member, hops + 1)
        return out

    def add(self, name: str, link: Optional[str], hard: bool) -> None:
        """Check one member (its folder, and a link's target, resolved through the links before it)."""
        parent = posixpath.dirname(name)
        self.resolve(parent, name)
        if link is not None:
            self.resolve(link if hard else posixpath.join(parent, link), name)
        if link is not None and not hard:
            self.links[name] = link
        else:
            self.links.pop(name, None)  # a later file or folder replaces an earlier link


def _link_target(member: str, target: str, archive: Path, hard: bool) -> None:
    """A link's target must stay inside the folder (a symlink's relative to its own folder)."""
    if target.startswith(("/", "\\")) or (len(target) > 1 and target[1] == ":"):
        raise ArchiveError(
            f"archive {archive}: link '{member}' points at the absolute path '{target}'; refusing it"
        )
    base = "" if hard else posixpath.dirname(member)
    norm = posixpath.normpath(posixpath.join(base, target.replace("\\", "/")))
    if norm == ".." or norm.startswith("../"):
        raise ArchiveError(
            f"archive {archive}: link '{member}' points outside the folder ('{target}'); refusing it"
        )


def _check_tar(tar: tarfile.TarFile, archive: Path) -> None:
    tree = _Tree(archive)
    for m in tar.getmembers():
        name = _inside(m.name, "member", archive)
        if m.issym() or m.islnk():
            _link_target(name, m.linkname, archive, hard=m.islnk())
            tree.add(name, m.linkname, hard=m.islnk())
        elif m.isfile() or m.isdir():
            tree.add(name, None, hard=False)
        else:
            raise ArchiveError(
                f"archive {archive}: member '{m.name}' is not a file, folder or link (a device or FIFO); refusing it"
            )


def _check_zip(zf: zipfile.ZipFile, archive: Path) -> list[tuple[str, str]]:
    """Every member checked; the symlinks [(member, target)] (zipfile itself would write them as files)."""
    links = []
    tree = _Tree(archive)
    for info in zf.infolist():
        name = _inside(info.filename, "member", archive)
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            with zf.open(info) as f:
                target = f.read(4096).decode("utf-8", "surrogateescape")
            _link_target(name, target, archive, hard=False)
            links.append((name, target))
            tree.add(name, target, hard=False)
        elif stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):  # 0: no Unix type (a plain file)
            raise ArchiveError(
                f"archive {archive}: member '{info.filename}' is not a file or folder; refusing it"
            )
        else:
            tree.add(name, None, hard=False)
    # the links are written after every file (`_extract`): a file's folder must also resolve inside through
    # links that come after it in the archive
    for info in zf.infolist():
        if not stat.S_ISLNK(info.external_attr >> 16):
            tree.resolve(
                posixpath.dirname(posixpath.normpath(info.filename.replace("\\", "/"))), info.filename
            )
    return links


def _check_space(total: int, dest: Path, archive: Path) -> None:
    """Refuse up front when the unpacked size does not fit on the cache's disk."""
    free = shutil.disk_usage(dest).free
    if total > free:
        raise ArchiveError(
            f"archive {archive} unpacks to {total / 1e9:.2f} GB but {dest.parent} has {free / 1e9:.2f} GB free; "
            "free some space or set HARNESS_CACHE_DIR to a larger disk"
        )


def _extract(archive: Path, dest: Path) -> None:
    """Check every member (and the space they need), then write them all under `dest`."""
    if archive.name.lower().endswith(".zip"):
        with zipfile.ZipFile(archive) as zf:
            links = _check_zip(zf, archive)
            _check_space(sum(i.file_size for i in zf.infolist()), dest, archive)
            skip = {n for n, _ in links}
            for info in zf.infolist():
                if posixpath.normpath(info.filename.replace("\\", "/")) not in skip:
                    zf.extract(info, dest)
            for name, target in links:
                (dest / name).parent.mkdir(parents=True, exist_ok=True)
                os.symlink(target, dest / name)
        return
    with tarfile.open(archive) as tar:
        _check_tar(tar, archive)
        _check_space(sum(m.size for m in tar.getmembers() if m.isfile()), dest, archive)
        if hasattr(tarfile, "data_filter"):  # Python >= 3.11.4 / 3.10.12: the stdlib's own checks as well
            tar.extractall(dest, filter="data")
        else:  # pragma: no cover - older Pythons; every member was checked above
            tar.extractall(dest)


def unpack_archive(archive: Path | str, cache_dir: Optional[Path] = None) -> Path:
    """The folder holding `archive`'s files, unpacked into `<cache>/archives/<key>/` on first use.

    Raises ArchiveError for an unsafe member (nothing is written) or an archive that cannot be read."""
    archive = Path(archive)
    if not archive.is_file():
        raise ArchiveError(f"archive {archive}: not a file")
    root = archives_dir(cache_dir)
    target = root / _key(archive)
    if not target.is_dir():
        root.mkdir(parents=True, exist_ok=True)
        with exclusive_lock(root / f".{target.name}.lock"):
            if not target.is_dir():
                tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=root))
                try:
                    _extract(archive, tmp)
                    os.replace(tmp, target)
                except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, UnicodeDecodeError) as err:
                    cause = " ".join(str(err).split())  # one line
                    raise ArchiveError(
                        f"archive {archive} cannot be unpacked ({type(err).__name__}: {cause}); download it again"
                    ) from None
                finally:
                    shutil.rmtree(tmp, ignore_errors=True)
    _unpacked.add(target.resolve())
    return target


def is_unpacked(path: Path | str) -> bool:
    """Whether `path` lies inside a folder `unpack_archive` made (this process's, or the default cache's)."""
    real = Path(os.path.realpath(path))
    roots = {*_unpacked, archives_dir().resolve()}
    return any(real.is_relative_to(r) for r in roots)
