"""`python -m harness` entry point."""

from harness.cli.main import main

raise SystemExit(main())
