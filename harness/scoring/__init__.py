"""Scoring: per-sample records aggregated into a task's metrics, breakdowns and CIs; is a run complete."""
