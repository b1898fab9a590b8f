"""RVTBench builder (paper 002, Sec. 2.2): digital twins, reasoning trees, implicit queries and ground truth."""
