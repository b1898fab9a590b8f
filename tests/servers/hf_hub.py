"""A stand-in Hugging Face hub on 127.0.0.1: the endpoints `huggingface_hub` uses to download, nothing else.

What `snapshot_download` / `hf_hub_download` (huggingface_hub 2.x) request, and what is answered here as the
hub answers it:
  GET  /api/{datasets|models}/OWNER/NAME[/revision/REV] -> {"id", "sha", "siblings"} (the revision's commit)
  GET  /api/{datasets|models}/OWNER/NAME/tree/REV[/DIR] -> [{"type": "file"|"directory", "path", "oid",
                                                             "size", "lfs"?}] (one page, no Link header)
  HEAD /[datasets/]OWNER/NAME/resolve/REV/PATH          -> small files: 200 with ETag (git blob id),
                                                             X-Repo-Commit, Content-Length; large ("LFS")
                                                             files: 302 to the CDN with X-Linked-Etag (sha256),
                                                             X-Linked-Size, X-Repo-Commit
  GET  the same, and GET CDN/blobs/SHA256                -> the bytes; `Range: bytes=K-` answers 206
Errors carry the hub's X-Error-Code (RepoNotFound, RevisionNotFound, EntryNotFound). The CDN is a second
server on another port, so the client treats it as another origin exactly as it treats the hub's CDN.

Test hooks: `requests` (every request: method, path, Range header), `gets()` (the repo paths whose bytes were
requested), `fail_once(path, mode)` ("500": answer
the next GET of that file with 500; "drop": send half its bytes, then close the connection).
Usage as a script: python hf_hub.py FOLDER --repo OWNER/NAME [--type dataset|model] [--port N]
serves FOLDER's files as that repo's `main`.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

LFS_SUFFIXES = (".mp4", ".safetensors", ".zip", ".tar", ".gz", ".parquet", ".bin", ".npy", ".png")


def git_blob_id(data: bytes) -> str:
    """The git object id of a file's bytes (what the hub sends as a small file's ETag)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class Repo:
    """One repository: its commits (commit id -> {path: bytes}) and branches (name -> commit id)."""

    repo_id: str
    repo_type: str
    commits: dict[str, dict[str, bytes]] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)

    def resolve(self, revision: str) -> str | None:
        if revision in self.branches:
            return self.branches[revision]
        return revision if revision in self.commits else None


class StandInHub:
    """The hub and its CDN, each a ThreadingHTTPServer on 127.0.0.1 (an ephemeral port unless given)."""

    def __init__(self, port: int = 0) -> None:
        self.repos: dict[tuple[str, str], Repo] = {}
        self.requests: list[tuple[str, str, str]] = []
        self._faults: dict[str, str] = {}
        self._lock = threading.Lock()
        self._blobs: dict[str, bytes] = {}  # sha256 -> bytes (the CDN's store)
        self.hub = ThreadingHTTPServer(("127.0.0.1", port), _handler(self, cdn=False))
        self.cdn = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self, cdn=True))
        self.hub.daemon_threads = self.cdn.daemon_threads = True
        self._threads: list[threading.Thread] = []
        self._connections: set = set()

    # -- content -----------------------------------------------------------------------------------
    def add_commit(
        self, repo_id: str, files: dict[str, bytes], repo_type: str = "dataset", branch: str = "main"
    ) -> str:
        """Add a commit holding exactly `files` and point `branch` at it; returns the 40-hex commit id."""
        repo = self.repos.setdefault((repo_type, repo_id), Repo(repo_id, repo_type))
        digest = hashlib.sha1(repr(len(repo.commits)).encode() + repo_id.encode())
        for path in sorted(files):
            digest.update(path.encode() + b"\0" + hashlib.sha256(files[path]).digest())
        commit = digest.hexdigest()
        repo.commits[commit] = dict(files)
        repo.branches[branch] = commit
        for data in files.values():
            self._blobs[hashlib.sha256(data).hexdigest()] = data
        return commit

    def fail_once(self, path: str, mode: str) -> None:
        """The next GET of the file at `path` fails: "500" (an error answer) or "drop" (half the bytes)."""
        self._faults[path] = mode

    def gets(self, since: int = 0) -> list[str]:
        """Repo paths of the files whose bytes were requested (GET on resolve or the CDN) after request #since."""
        out = []
        for method, path, _ in self.requests[since:]:
            if method != "GET":
                continue
            if path.startswith("/blobs/"):
                out.append(_cdn_file(path))
            elif "/resolve/" in path:
                out.append(unquote(path.split("/resolve/", 1)[1].split("/", 1)[1]))
        return out

    def ranges(self) -> list[str]:
        """The Range headers of every request that sent one."""
        return [r for _, _, r in self.requests if r]

    # -- lifecycle ---------------------------------------------------------------------------------
    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.hub.server_address[1]}"

    @property
    def cdn_url(self) -> str:
        return f"http://127.0.0.1:{self.cdn.server_address[1]}"

    def start(self) -> StandInHub:
        for server in (self.hub, self.cdn):
            t = threading.Thread(target=server.serve_forever, daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def stop(self) -> None:
        """Stop answering: the listening sockets and every open keep-alive connection are closed."""
        for server in (self.hub, self.cdn):
            server.shutdown()
            server.server_close()
        with self._lock:
            open_now, self._connections = list(self._connections), set()
        for conn in open_now:
            try:
                conn.shutdown(2)
            except OSError:
                pass

    def __enter__(self) -> StandInHub:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- answers (called by the handler) -----------------------------------------------------------
    def _record(self, method: str, path: str, range_header: str) -> None:
        with self._lock:
            self.requests.append((method, path, range_header))

    def _take_fault(self, path: str) -> str | None:
        with self._lock:
            return self._faults.pop(path, None)


def _handler(hub: StandInHub, cdn: bool) -> type[BaseHTTPRequestHandler]:
    class Handler(_HubHandler):
        pass

    Handler.hub, Handler.is_cdn = hub, cdn
    return Handler


class _HubHandler(BaseHTTPRequestHandler):
    hub: StandInHub
    is_cdn: bool
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # quiet: tests read `hub.requests`
        pass

    def setup(self) -> None:
        super().setup()
        with self.hub._lock:
            self.hub._connections.add(self.connection)

    def finish(self) -> None:
        with self.hub._lock:
            self.hub._connections.discard(self.connection)
        super().finish()

    def do_HEAD(self) -> None:  # noqa: N802 - http.server's naming
        self._answer("HEAD")

    def do_GET(self) -> None:  # noqa: N802
        self._answer("GET")

    # -- routing -----------------------------------------------------------------------------------
    def _answer(self, method: str) -> None:
        raw_path = urlsplit(self.path).path
        if self.is_cdn:
            self.hub._record(method, self.path, self.headers.get("Range", ""))
            parts = raw_path.strip("/").split("/")
            data = self.hub._blobs.get(parts[-1]) if len(parts) == 2 and parts[0] == "blobs" else None
            if data is None:
                return self._error(404, "EntryNotFound", "no such blob")
            return self._bytes(method, data, {}, fault_key=_cdn_file(self.path))
        self.hub._record(method, raw_path, self.headers.get("Range", ""))
        parts = raw_path.strip("/").split("/")
        if parts[:1] == ["api"] and len(parts) >= 4 and parts[1] in ("datasets", "models"):
            repo = self.hub.repos.get((parts[1][:-1], f"{unquote(parts[2])}/{unquote(parts[3])}"))
            if len(parts) == 4:  # the repo's info at its default branch
                return self._api(repo, "revision", ["main"])
            return self._api(repo, parts[4], [unquote(p) for p in parts[5:]])
        repo_type = "dataset" if parts[:1] == ["datasets"] else "model"
        parts = parts[1:] if repo_type == "dataset" else parts
        if len(parts) >= 5 and parts[2] == "resolve":
            repo = self.hub.repos.get((repo_type, f"{unquote(parts[0])}/{unquote(parts[1])}"))
            path = "/".join(unquote(p) for p in parts[4:])
            return self._resolve(method, repo, unquote(parts[3]), path, raw_path)
        return self._error(404, "", "unknown endpoint")

    def _api(self, repo: Repo | None, kind: str, rest: list[str]) -> None:
        if repo is None:
            return self._error(404, "RepoNotFound", "Repository not found")
        commit = repo.resolve(rest[0]) if rest else None
        if commit is None:
            return self._error(404, "RevisionNotFound", f"Invalid rev id: {rest[0] if rest else ''}")
        files = repo.commits[commit]
        if kind == "revision":
            body = {
                "id": repo.repo_id,
                "sha": commit,
                "private": False,
                "siblings": [{"rfilename": p} for p in sorted(files)],
            }
            return self._json(body)
        if kind == "tree":
            prefix = "/".join(rest[1:]).strip("/")
            return self._json(_tree(files, prefix))
        return self._error(404, "", "unknown api")

    def _resolve(self, method: str, repo: Repo | None, revision: str, path: str, raw_path: str) -> None:
        if repo is None:
            return self._error(404, "RepoNotFound", "Repository not found")
        commit = repo.resolve(revision)
        if commit is None:
            return self._error(404, "RevisionNotFound", f"Invalid rev id: {revision}")
        data = repo.commits[commit].get(path)
        if data is None:
            return self._error(404, "EntryNotFound", f"{path} does not exist", {"X-Repo-Commit": commit})
        if path.endswith(LFS_SUFFIXES):
            sha = hashlib.sha256(data).hexdigest()
            headers = {
                "X-Repo-Commit": commit,
                "X-Linked-Etag": f'"{sha}"',
                "X-Linked-Size": str(len(data)),
                "ETag": f'"{git_blob_id(data)}"',
                "Location": f"{self.hub.cdn_url}/blobs/{sha}?file={quote(path, safe='')}",
                "Content-Length": "0",
            }
            return self._send(302, headers)
        headers = {"X-Repo-Commit": commit, "ETag": f'"{git_blob_id(data)}"'}
        return self._bytes(method, data, headers, fault_key=path)

    # -- writing -----------------------------------------------------------------------------------
    def _bytes(self, method: str, data: bytes, headers: dict[str, str], fault_key: str) -> None:
        start = 0
        rng = self.headers.get("Range", "")
        if rng.startswith("bytes=") and rng[6:].split("-")[0].isdigit():
            start = int(rng[6:].split("-")[0])
        fault = self.hub._take_fault(fault_key) if method == "GET" else None
        if fault == "500":
            return self._error(500, "", "Internal Error")
        body = data[start:]
        headers = dict(headers, **{"Content-Length": str(len(body)), "Accept-Ranges": "bytes"})
        status = 200
        if start:
            status = 206
            headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
        if method == "HEAD":
            return self._send(status, headers)
        if fault == "drop":
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            time.sleep(0.05)
            self.close_connection = True
            self.connection.shutdown(2)
            return None
        self._send(status, headers, body)

    def _json(self, value) -> None:
        body = json.dumps(value).encode()
        self._send(200, {"Content-Type": "application/json", "Content-Length": str(len(body))}, body)

    def _error(self, status: int, code: str, message: str, extra: dict[str, str] | None = None) -> None:
        body = json.dumps({"error": message}).encode()
        headers = {"Content-Type": "application/json", "Content-Length": str(len(body)), **(extra or {})}
        if code:
            headers["X-Error-Code"] = code
            headers["X-Error-Message"] = message
        self._send(status, headers, body)

    def _send(self, status: int, headers: dict[str, str], body: bytes = b"") -> None:
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)


def _tree(files: dict[str, bytes], prefix: str) -> list[dict]:
    """The recursive tree listing of the files under `prefix`: every folder, then every file."""
    entries, folders = [], set()
    for path in sorted(files):
        if prefix and not path.startswith(prefix + "/"):
            continue
        parts = path.split("/")
        for i in range(1, len(parts)):
            folders.add("/".join(parts[:i]))
        data = files[path]
        entry = {"type": "file", "path": path, "oid": git_blob_id(data), "size": len(data)}
        if path.endswith(LFS_SUFFIXES):
            sha = hashlib.sha256(data).hexdigest()
            entry["lfs"] = {"oid": sha, "size": len(data), "pointerSize": 134}
        entries.append(entry)
    dirs = [
        {"type": "directory", "path": d, "oid": hashlib.sha1(d.encode()).hexdigest(), "size": 0}
        for d in sorted(folders)
        if not prefix or d.startswith(prefix + "/")
    ]
    return dirs + entries


def closed_port_endpoint() -> str:
    """An address on 127.0.0.1 where nothing listens: connections are refused at once."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


@contextlib.contextmanager
def silent_endpoint() -> Iterator[str]:
    """An address that accepts connections (the kernel's backlog) and never answers: a hub that hangs."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        yield f"http://127.0.0.1:{s.getsockname()[1]}"


def _cdn_file(url_path: str) -> str:
    """The repo path a CDN URL was issued for (its `file` query, as a signed CDN URL carries its own)."""
    query = urlsplit(url_path).query
    return unquote(query.split("file=", 1)[1]) if "file=" in query else url_path


def folder_files(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` as {relative posix path: bytes}."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def resolve_url(
    endpoint: str, repo_id: str, path: str, revision: str = "main", repo_type: str = "dataset"
) -> str:
    """The resolve URL of one file (what `hf_hub_url` builds)."""
    prefix = "datasets/" if repo_type == "dataset" else ""
    return f"{endpoint}/{prefix}{repo_id}/resolve/{quote(revision, safe='')}/{quote(path)}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folder", type=Path)
    p.add_argument("--repo", required=True)
    p.add_argument("--type", default="dataset", choices=("dataset", "model"))
    p.add_argument("--port", type=int, default=0)
    args = p.parse_args()
    hub = StandInHub(args.port)
    commit = hub.add_commit(args.repo, folder_files(args.folder), args.type)
    hub.start()
    print(f"HF_ENDPOINT={hub.endpoint} repo={args.repo} commit={commit}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        hub.stop()


if __name__ == "__main__":
    main()
