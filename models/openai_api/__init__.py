"""The `openai` adapter: any OpenAI-compatible chat endpoint (vLLM, SGLang, hosted APIs)."""
