"""Benchmark scripts: one per figure, each measuring its baseline in the same run (`python -m bench`)."""
