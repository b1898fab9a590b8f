"""Data: a task at run time (docs, prompts, hooks), lmms-eval task folders, HF datasets and media references."""
