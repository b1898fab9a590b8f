"""`python -m harness` entry point."""

from harness.cli.main import entry

entry()
