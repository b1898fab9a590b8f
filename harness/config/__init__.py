"""Task configuration: YAML indexing (cheap, for listing) and the typed schema (for running)."""
