"""Shared by the hub tests: a `python -m harness` environment pointed at a stand-in hub with its own HF cache,
and a fixture that lets this process ask the hub whatever HF_HUB_OFFLINE the test run has."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import harness_env


def hub_env(tmp_path: Path, endpoint: str, offline: bool = False, **extra: str) -> dict[str, str]:
    """A `python -m harness` environment with its own HF cache, pointed at `endpoint`."""
    env = harness_env(
        HF_HOME=str(tmp_path / "hf"),
        HF_ENDPOINT=endpoint,
        HARNESS_CACHE_DIR=str(tmp_path / "cache"),
        HF_HUB_DISABLE_UPDATE_CHECK="1",
        HF_HUB_DISABLE_TELEMETRY="1",
        HF_HUB_DISABLE_IMPLICIT_TOKEN="1",
        **extra,
    )
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_TOKEN", "HF_HUB_CACHE"):
        env.pop(name, None)
    if offline:
        env["HF_HUB_OFFLINE"] = "1"
    return env


@pytest.fixture
def online(monkeypatch):
    """This process may ask the hub (whatever HF_HUB_OFFLINE the test run has)."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
