"""Baseline models: random, prior and oracle. They read request hints, never task names."""
