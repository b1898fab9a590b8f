"""CycliST dataset builder: scenes with cyclical state transitions, validation, renderers (paper 000)."""
