"""The engine: run a configuration end to end (runner), turn tasks x a model into records (evaluator), the
generation pipeline between caches and the model, judges, and data-parallel ranks."""
