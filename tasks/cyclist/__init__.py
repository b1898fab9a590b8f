"""CycliST task plugin: the paper's VQA and scene-understanding protocol, judges and tables (paper 000)."""
