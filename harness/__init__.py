"""A plugin-based evaluation harness for video language models."""

from harness import moved

__version__ = "0.1.0"

moved.install()  # module paths from before the 0.2 regroup keep importing, with a DeprecationWarning
