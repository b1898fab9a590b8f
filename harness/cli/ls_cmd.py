"""`python -m harness ls tasks|models|metrics|builders|judges|reports|importers|plugins`: what the plugins registered.

Task configs are indexed from YAML without importing task code, so this stays fast.
"""

from __future__ import annotations

import argparse

from harness.errors import EXIT_OK
from harness.plugins import load_plugins

WHAT = ("tasks", "models", "metrics", "builders", "judges", "reports", "importers", "plugins")


def main(argv: list[str], command: str = "ls") -> int:
    p = argparse.ArgumentParser(prog="python -m harness ls")
    p.add_argument("what", choices=WHAT)
    p.add_argument("--include_path", action="append", default=[])
    args = p.parse_args(argv)
    state = load_plugins(args.include_path)
    if args.what == "plugins":
        print(f"{'plugin':28} {'version':10} {'status':8} registered")
        for info in sorted(state.plugins, key=lambda i: i.name):
            reg = ", ".join(f"{len(v)} {k}s" for k, v in sorted(info.registered.items())) or "-"
            status = "BROKEN" if info.errors else "ok"
            print(f"{info.name:28} {info.version:10} {status:8} {reg}  [{info.source}]")
            for err in info.errors:
                print(f"    error: {err}")
        return EXIT_OK
    kind = args.what[:-1]
    entries = state.registry.entries(kind)
    width = max([len(e.name) for e in entries] + [10])
    for e in entries:
        tag = " (group)" if e.extra.get("group") else ""
        desc = (e.description or "").strip().splitlines()[0] if e.description else ""
        print(f"{e.name:{width}}  {e.plugin} {e.plugin_version}{tag}  {desc}".rstrip())
    for info in state.broken():
        print(f"warning: plugin '{info.name}' is broken: {'; '.join(info.errors)}")
    return EXIT_OK
