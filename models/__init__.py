"""Model adapters: transformers models, OpenAI-compatible servers and baselines."""
