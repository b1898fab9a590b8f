"""`python -m harness submission check FILE [--name submissions/NAME.json] [--allow CONFIG] [--github-output F]`:
a leaderboard submission checked before anything runs it (harness/config/submission.py says what is checked).

Exit 0 when it may run (with `--github-output`, its name, model and model_args are appended to that file as
`key=value` lines for the workflow's later steps, which read them through `env:`); exit 2 with one line per
problem, each naming the field, when it may not.
"""

from __future__ import annotations

import sys
from pathlib import Path

from harness.cli.args import ArgumentParser
from harness.config.submission import (
    canonical_args,
    check_submission,
    one_line,
    read_policy,
    read_submission,
)
from harness.errors import EXIT_OK, EXIT_USAGE, ConfigError
from harness.plugins.loading import load_plugins


def main(argv: list[str]) -> int:
    """Check one submission file; exit 2 with one line per problem."""
    p = ArgumentParser(prog="python -m harness submission", description="check a leaderboard submission")
    p.add_argument("action", choices=["check"], help="check: validate FILE before anything runs it")
    p.add_argument("file", help='the submission, a JSON file {"model": NAME, "model_args": ...}')
    p.add_argument(
        "--name", default=None, help="its path in the leaderboard repository: submissions/NAME.json"
    )
    p.add_argument(
        "--allow",
        default=None,
        help="the leaderboard's config (YAML/JSON): models taken, reviewed exceptions",
    )
    p.add_argument(
        "--github-output", default=None, help="append name=, model=, model_args= lines here when it passes"
    )
    args = p.parse_args(argv)
    path = Path(args.file)
    if not path.is_file():
        raise ConfigError(f"submission {path}: no such file")
    policy = read_policy(Path(args.allow) if args.allow else None)
    sub = read_submission(path, args.name)
    problems = check_submission(sub, load_plugins(kinds=("model",)), policy)
    for problem in problems:
        print(one_line(f"error: submission {args.name or path}: {problem}"), file=sys.stderr)
    if problems:
        return EXIT_USAGE
    model_args = canonical_args(sub.model_args)
    if args.github_output:
        with open(args.github_output, "a", encoding="utf-8") as out:
            out.write(f"name={sub.name}\nmodel={sub.model}\nmodel_args={model_args}\n")
    print(f"submission {sub.name}: model {sub.model}, model_args {model_args or '(none)'}: ok")
    return EXIT_OK
