"""`python -m harness ls KIND|plugins`: what the plugins registered, one registry kind at a time (the kinds:
`harness.hookspecs.KINDS`), or the plugins themselves.

Task configs are indexed from YAML without importing task code, so this stays fast.
"""

from __future__ import annotations

import argparse
import sys

from harness.cli.builtin_commands import LS_WORDS
from harness.config.schema import parse_task_config
from harness.engine.judging import RULE_JUDGE, RULE_JUDGE_HELP
from harness.errors import EXIT_OK, EXIT_RUNTIME, EXIT_USAGE, ConfigError
from harness.hookspecs import KINDS
from harness.plugins.loading import PluginState, load_plugins
from harness.scoring.aggregations import BUILTIN

WHAT = LS_WORDS
KINDS_HELP = "\n".join(
    ["what it lists:"]
    + [f"  {k.plural:13} {k.summary}" for k in KINDS]
    + [f"  {'plugins':13} each plugin, its version, what it registered and its errors"]
)


def validate_task_configs(state: PluginState) -> dict[str, list[str]]:
    """plugin name -> the messages of its task YAMLs that do not validate (each names file and field)."""
    out: dict[str, list[str]] = {}
    for entry in state.registry.entries("task"):
        try:
            parse_task_config(entry.extra["config"], entry.extra["path"])
        except ConfigError as exc:
            out.setdefault(entry.plugin, []).append(f"task '{entry.name}': {exc}")
    return out


def print_judges(state: PluginState) -> None:
    """Every name `--judge` takes: the rule judge, the registered judges, then every model (any can judge)."""
    judges = state.registry.entries("judge")
    judge_names = {e.name for e in judges}
    models = [e for e in state.registry.entries("model") if e.name not in judge_names]
    width = max([len(e.name) for e in [*judges, *models]] + [len(RULE_JUDGE), 10])
    print(f"{RULE_JUDGE:{width}}  built in  {RULE_JUDGE_HELP}")
    for e in judges:
        desc = (e.description or "").strip().splitlines()[0] if e.description else ""
        print(f"{e.name:{width}}  {e.plugin} {e.plugin_version}  judge: {desc}".rstrip())
    for e in models:
        desc = (e.description or "").strip().splitlines()[0] if e.description else ""
        print(f"{e.name:{width}}  {e.plugin} {e.plugin_version}  model as judge: {desc}".rstrip())


def warn_broken(state: PluginState) -> int:
    """Name every broken plugin; a plugin that registered nothing at all (it failed to import, or found none
    of its files) is an error (exit 3), so an install without the plugins' files never lists nothing with 0."""
    for info in state.broken():
        print(f"warning: plugin '{info.name}' is broken: {'; '.join(info.errors)}")
    empty = state.empty_broken()
    if empty:
        names = ", ".join(f"'{p.name}'" for p in empty)
        print(f"error: plugin(s) {names} registered nothing (see the warnings above)", file=sys.stderr)
        return EXIT_RUNTIME
    return EXIT_OK


def main(argv: list[str], command: str = "ls") -> int:
    p = argparse.ArgumentParser(
        prog="python -m harness ls", epilog=KINDS_HELP, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("what", choices=WHAT)
    p.add_argument("--include_path", action="append", default=[])
    args = p.parse_args(argv)
    state = load_plugins(args.include_path)
    if args.what == "plugins":
        invalid = validate_task_configs(state)
        print(f"{'plugin':28} {'version':10} {'status':8} registered")
        for info in sorted(state.plugins, key=lambda i: i.name):
            info.errors.extend(invalid.get(info.name, []))
            reg = ", ".join(f"{len(v)} {k}s" for k, v in sorted(info.registered.items())) or "-"
            status = "BROKEN" if info.errors else "ok"
            print(f"{info.name:28} {info.version:10} {status:8} {reg}  [{info.source}]")
            for err in info.errors:
                print(f"    error: {err}")
        if invalid:
            n = sum(len(v) for v in invalid.values())
            print(f"error: {n} task config(s) are invalid (listed above by file and field)", file=sys.stderr)
            return EXIT_USAGE
        return EXIT_OK
    if args.what == "judges":
        print_judges(state)
        return warn_broken(state)
    kind = args.what[:-1]
    entries = state.registry.entries(kind)
    if kind == "aggregation":
        print("\n".join(f"{name:10}  built in" for name in BUILTIN))
    width = max([len(e.name) for e in entries] + [10])
    for e in entries:
        tag = " (group)" if e.extra.get("group") else ""
        desc = (e.description or "").strip().splitlines()[0] if e.description else ""
        print(f"{e.name:{width}}  {e.plugin} {e.plugin_version}{tag}  {desc}".rstrip())
    return warn_broken(state)
