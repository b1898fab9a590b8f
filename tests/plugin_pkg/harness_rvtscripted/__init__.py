"""Test-only plugin for the RVTBench tests: scripted models and scripted builder parts (fast, deterministic)."""
