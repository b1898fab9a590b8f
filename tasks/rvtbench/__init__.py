"""RVTBench task plugin (paper 002): reasoning segmentation, grounding, VQA and summary."""
