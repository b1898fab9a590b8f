"""Frames: the task-owned frame spec, index samplers, decoders and the frame cache."""
