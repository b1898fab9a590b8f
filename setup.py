"""Packaging: every folder below the ones setup.cfg's `package_dir` maps to an import name is a package (a
data folder such as configs/ is a namespace package, so its files ship as package data). The rest (metadata,
dependencies, entry points, package data, the mapping itself) lives in setup.cfg."""

import configparser
from pathlib import Path

from setuptools import find_namespace_packages, setup


def package_dirs() -> dict[str, str]:
    """setup.cfg's [options] package_dir: import name -> folder."""
    cfg = configparser.ConfigParser()
    cfg.read(Path(__file__).with_name("setup.cfg"), encoding="utf-8")
    lines = cfg["options"]["package_dir"].strip().splitlines()
    return {k.strip(): v.strip() for k, v in (line.split("=", 1) for line in lines)}


def packages(dirs: dict[str, str]) -> list[str]:
    found = []
    for name, folder in dirs.items():
        found.append(name)
        found += [f"{name}.{sub}" for sub in find_namespace_packages(folder, exclude=["*__pycache__*"])]
    return found


DIRS = package_dirs()
setup(packages=packages(DIRS), package_dir=DIRS)
