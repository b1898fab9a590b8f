"""The command line: `python -m harness [run flags]` and its subcommands."""
