"""A task's hook file ("file.py:function") is imported once per process, under a private module name in
sys.modules (the registry of loaded modules: the harness keeps no dict of its own), and a file that fails to
import leaves nothing behind."""

from __future__ import annotations

import sys

import pytest

from harness.errors import ConfigError
from harness.plugins.references import load_hook


def test_a_hook_file_is_imported_once_and_registered_in_sys_modules(tmp_path):
    (tmp_path / "hooks.py").write_text(
        "import pathlib\n"
        f"pathlib.Path({str(tmp_path / 'imports.log')!r}).open('a').write('x')\n"
        "def parse(response, doc):\n    return response\n"
    )
    first = load_hook("hooks.py:parse", tmp_path, "task 't' hooks.parse")
    again = load_hook("hooks.py:parse", tmp_path, "task 't' hooks.parse")
    assert first is again and first("a", {}) == "a"
    assert (tmp_path / "imports.log").read_text() == "x"  # executed once
    assert sys.modules[first.__module__].__file__ == str((tmp_path / "hooks.py").resolve())
    del sys.modules[first.__module__]


def test_a_hook_file_that_fails_to_import_is_not_kept(tmp_path):
    (tmp_path / "broken.py").write_text("raise RuntimeError('boom')\n")
    before = set(sys.modules)
    with pytest.raises(ConfigError, match="broken.py failed to import: RuntimeError: boom"):
        load_hook("broken.py:parse", tmp_path, "task 't' hooks.parse")
    assert set(sys.modules) == before
