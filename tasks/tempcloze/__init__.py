"""TempCloze task plugin: pick the true missing middle of a video from four candidate clips.

Tasks, the public evaluation's protocol, joint metrics, sensitivity analyses and two non-LLM baseline
models; see docs/benchmarks/tempcloze.md.
"""
