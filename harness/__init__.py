"""A plugin-based evaluation harness for video language models."""

__version__ = "0.1.0"
