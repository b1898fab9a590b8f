"""Dataset builders: regenerate each benchmark from a seed."""
