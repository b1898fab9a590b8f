"""The transformers adapter (`hf`) and its named presets; heavy imports happen only when a model loads."""
