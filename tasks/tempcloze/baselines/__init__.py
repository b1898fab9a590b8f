"""Non-LLM TempCloze baselines registered as models: they read request frames and clip labels only."""
