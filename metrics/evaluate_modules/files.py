"""The module folders `evaluate.load(path)` needs, written from metrics/table.py.

`evaluate.load("<folder>")` imports the script `<folder>/<folder name>.py` and uses its first
`evaluate.Metric` subclass, so every table row gets a folder whose script names the row and nothing else.
"""

from __future__ import annotations

from pathlib import Path

from harness_metrics.table import METRICS

FOLDER = Path(__file__).parent


def class_name(name: str) -> str:
    """The class name whose snake case `evaluate` gives back as the module's name (`j_and_f` -> JAndF)."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def script_text(name: str) -> str:
    """The script of the row `name`'s folder: it builds the module's class from the table."""
    return (
        f'"""`evaluate` module of the metric `{name}` (metrics/table.py), written by '
        '`python -m harness_metrics.evaluate_modules`."""\n\n'
        "from harness_metrics.evaluate_modules.module import metric_class\n\n"
        f'{class_name(name)} = metric_class("{name}")\n'
    )


def folder_files(name: str, root: Path = FOLDER) -> dict[Path, str]:
    """The files of the row `name`'s folder and their text: the script `evaluate.load(root / name)` looks
    for, and an `__init__.py` that makes the folder a package, so that it ships with the wheel."""
    folder = root / name
    package = f'"""The `evaluate` module folder of the metric `{name}` (metrics/table.py)."""\n'
    return {folder / f"{name}.py": script_text(name), folder / "__init__.py": package}


def _differs(path: Path, text: str) -> bool:
    return not path.is_file() or path.read_text() != text


def stale(root: Path = FOLDER) -> list[str]:
    """What differs between the folders under `root` and the table: missing or changed files, stray folders."""
    problems = [
        f"{path}: missing or not as metrics/table.py writes it; run `python -m harness_metrics.evaluate_modules`"
        for row in METRICS
        for path, text in folder_files(row.name, root).items()
        if _differs(path, text)
    ]
    names = {row.name for row in METRICS}
    problems += [
        f"{folder}: a module folder without a row in metrics/table.py; remove it or add the row"
        for folder in sorted(root.iterdir())
        if folder.is_dir() and not folder.name.startswith(("_", ".")) and folder.name not in names
    ]
    return problems


def write(root: Path = FOLDER) -> list[Path]:
    """Write every row's folder file that is missing or differs; the paths written."""
    written = []
    for row in METRICS:
        for path, text in folder_files(row.name, root).items():
            if _differs(path, text):
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
                written.append(path)
    return written
