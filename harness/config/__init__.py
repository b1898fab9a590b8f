"""Configuration: task YAMLs (cheap indexing for listing, the typed schema for running, lmms-eval's format)
and the run configuration the CLI flags make."""
