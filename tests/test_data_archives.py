"""Archives of a release unpacked into the cache on first use, safely: nothing lands outside the target."""

from __future__ import annotations

import io
import tarfile
import threading
import zipfile
from pathlib import Path

import pytest

from harness.data import archives
from harness.data.archives import ArchiveError, archive_stem, is_archive, is_unpacked, unpack_archive


def _tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes]], mode: str = "w:gz") -> Path:
    with tarfile.open(path, mode) as tar:
        for info, data in members:
            info.size = len(data) if info.isfile() else 0
            tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return path


def _file(name: str, data: bytes = b"x") -> tuple[tarfile.TarInfo, bytes]:
    return tarfile.TarInfo(name), data


def _link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info, b""


def _zip(path: Path, members: dict[str, bytes], links: dict[str, str] | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (0o120777 << 16) | 0x20  # a symlink, as Info-ZIP stores one
            zf.writestr(info, target)
    return path


def test_zip_and_tar_unpack_once_into_the_cache(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    z = _zip(tmp_path / "videos.zip", {"videos/a.mp4": b"A", "videos/sub/b.mp4": b"B", "notes.txt": b"n"})
    t = _tar(tmp_path / "masks.tar.gz", [_file("masks/0.png", b"P"), _link("masks/latest.png", "0.png")])
    zdir, tdir = unpack_archive(z, cache), unpack_archive(t, cache)
    assert (zdir / "videos" / "sub" / "b.mp4").read_bytes() == b"B" and (zdir / "notes.txt").exists()
    assert (tdir / "masks" / "latest.png").read_bytes() == b"P"  # a link inside the folder is kept
    assert zdir.parent == tdir.parent == cache / "archives" and zdir != tdir
    assert is_unpacked(zdir / "videos" / "a.mp4") and not is_unpacked(z)

    def fail(*_args):
        raise AssertionError("unpacked twice")

    monkeypatch.setattr(archives, "_extract", fail)
    assert unpack_archive(z, cache) == zdir  # the second use reads the folder
    z.touch()  # a changed file (new modification time) is a new key, unpacked anew
    monkeypatch.undo()
    again = unpack_archive(z, cache)
    assert again != zdir and (again / "videos" / "a.mp4").read_bytes() == b"A"
    temporary = [p for p in (cache / "archives").iterdir() if p.name.startswith(".") and p.suffix != ".lock"]
    assert temporary == []  # no half-unpacked folder left behind


@pytest.mark.parametrize(
    "members, message",
    [
        ([_file("/etc/evil", b"!")], "is an absolute path"),
        ([_file("../../evil", b"!")], r"climbs out of the folder \('\.\.'\)"),
        ([_file("ok/../../evil", b"!")], "climbs out"),
        ([_link("out", "/etc/passwd")], "points at the absolute path"),
        ([_link("d/out", "../../secret")], "points outside the folder"),
        ([_link("hard", "../secret", tarfile.LNKTYPE)], "points outside the folder"),
        ([_link("dev", "", tarfile.CHRTYPE)], "not a file, folder or link"),
        ([_link("fifo", "", tarfile.FIFOTYPE)], "not a file, folder or link"),
    ],
    ids=[
        "absolute",
        "dotdot",
        "dotdot_inside",
        "symlink_abs",
        "symlink_out",
        "hardlink_out",
        "device",
        "fifo",
    ],
)
def test_an_unsafe_tar_is_refused_whole_and_nothing_is_written(members, message, tmp_path):
    cache = tmp_path / "cache"
    bad = _tar(tmp_path / "bad.tar", [_file("good.txt", b"g"), *members], mode="w")
    with pytest.raises(ArchiveError, match=message) as err:
        unpack_archive(bad, cache)
    assert "bad.tar" in str(err.value)
    assert [p for p in (cache / "archives").iterdir() if not p.name.endswith(".lock")] == []
    assert not (tmp_path / "evil").exists() and not (tmp_path.parent / "evil").exists()


@pytest.mark.parametrize(
    "members, links, message",
    [
        ({"../evil": b"!"}, {}, "climbs out"),
        ({"/abs/evil": b"!"}, {}, "absolute path"),
        ({"C:/evil": b"!"}, {}, "absolute path"),
        ({"a.txt": b"a"}, {"link": "../../outside"}, "points outside the folder"),
        ({"a.txt": b"a"}, {"link": "/etc/passwd"}, "points at the absolute path"),
    ],
    ids=["dotdot", "absolute", "drive", "symlink_out", "symlink_abs"],
)
def test_an_unsafe_zip_is_refused(members, links, message, tmp_path):
    bad = _zip(tmp_path / "bad.zip", members, links)
    with pytest.raises(ArchiveError, match=message):
        unpack_archive(bad, tmp_path / "cache")
    assert not (tmp_path / "evil").exists()


def test_a_zip_symlink_inside_is_a_symlink_and_a_corrupt_archive_is_named(tmp_path):
    ok = _zip(tmp_path / "ok.zip", {"v/a.mp4": b"A"}, {"v/b.mp4": "a.mp4"})
    folder = unpack_archive(ok, tmp_path / "cache")
    assert (folder / "v" / "b.mp4").is_symlink() and (folder / "v" / "b.mp4").read_bytes() == b"A"
    broken = tmp_path / "broken.tar.gz"
    broken.write_bytes(b"\x1f\x8b not really gzip")
    with pytest.raises(ArchiveError, match=r"broken.tar.gz cannot be unpacked .*download it again"):
        unpack_archive(broken, tmp_path / "cache")


def test_concurrent_first_uses_unpack_once(tmp_path):
    z = _zip(tmp_path / "v.zip", {f"f{i}.bin": bytes(1000) for i in range(50)})
    results: list[Path] = []
    threads = [
        threading.Thread(target=lambda: results.append(unpack_archive(z, tmp_path / "c"))) for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(results)) == 1 and len(list(results[0].iterdir())) == 50


def test_names():
    assert is_archive("a/B.TAR.GZ") and is_archive("x.tgz") and not is_archive("x.json")
    assert archive_stem("videos.tar.gz") == "videos" and archive_stem("v.zip") == "v"


def _chain(n: int) -> list[tuple[str, str]]:
    """`l0 -> .` then `l<i> -> l<i-1>/l<i-1>/..`: each as written stays inside, followed they climb out."""
    links = [("l0", ".")]
    for i in range(1, n):
        links.append((f"l{i}", f"l{i - 1}/" * i + ".."))
    return links


#: chains of links, each link harmless as written, that leave the folder once the earlier links are followed
CHAINS = {
    "dot_then_up": [("l1", "."), ("l2", "l1/..")],
    "long_chain": _chain(8),
    "through_a_folder_link": [("d/up", ".."), ("d/up/out", "..")],
    "member_through_link": [("d/up", ".."), ("d/up/l", "."), ("d/up/l/x", "../..")],
    "loop": [("a", "b"), ("b", "a"), ("c", "a/x")],
}


@pytest.mark.parametrize("name", sorted(CHAINS))
def test_a_chain_of_links_that_leaves_is_refused_in_tar_and_zip(name, tmp_path):
    links = CHAINS[name]
    t = _tar(tmp_path / "chain.tar", [_file("good.txt", b"g"), *(_link(n, t) for n, t in links)], mode="w")
    z = _zip(tmp_path / "chain.zip", {"good.txt": b"g"}, dict(links))
    for bad in (t, z):
        with pytest.raises(ArchiveError, match="links before it|loop of links") as err:
            unpack_archive(bad, tmp_path / "cache")
        assert bad.name in str(err.value) and "\n" not in str(err.value)
    assert [p for p in (tmp_path / "cache" / "archives").iterdir() if not p.name.endswith(".lock")] == []


def test_a_chain_of_links_that_stays_inside_is_kept(tmp_path):
    members = [_file("v/2024/a.mp4", b"A"), _link("v/cur", "2024"), _link("v/latest", "cur/a.mp4")]
    folder = unpack_archive(_tar(tmp_path / "ok.tar", members, mode="w"), tmp_path / "cache")
    assert (folder / "v" / "latest").read_bytes() == b"A"
