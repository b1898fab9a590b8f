"""Screenshots of each benchmark's section of the demo report, for docs/reports.md (headless Chromium).

    python -m harness demo --out demo_out
    python docs/img/report_screenshots.py demo_out      # writes docs/img/report_<section>.png

Each section (Overview, CycliST, RVTBench, TempCloze, with their parts) is rendered as its own HTML page by
the report's writer, shot at 1000 px wide in Chromium, cut below its last line and reduced to a small
palette PNG.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from harness.plugins.loading import load_plugins
from harness.report.engine import build_report
from harness.report.html_writer import render_html
from harness.report.loading import load_runs

HERE = Path(__file__).parent
KEYS = ("overview", "cyclist", "rvtbench", "tempcloze")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]  # fmt: skip


def _groups(sections):
    """Each top-level section with the parts under it, keyed by its anchor."""
    out, current = {}, None
    for s in sections:
        if s.level <= 2:
            current = s.key or s.anchor()
            out[current] = []
        if current is not None:
            out[current].append(s)
    return out


def _shoot(chromium: str, page: Path, png: Path, profile: Path, max_height: int = 2600) -> None:
    from PIL import Image

    raw = png.with_suffix(".raw.png")
    subprocess.run([chromium, *FLAGS, f"--user-data-dir={profile}", "--window-size=1000,6000",
                    f"--screenshot={raw}", page.as_uri()], check=True, capture_output=True, timeout=120)  # fmt: skip
    img = Image.open(raw).convert("RGB")
    inked = np.flatnonzero(np.asarray(img).min(axis=(1, 2)) < 250)  # rows with anything but white
    bottom = min(int(inked[-1]) + 24 if inked.size else img.height, max_height)
    img = img.crop((0, 0, img.width, bottom))
    img = img.resize((700, int(bottom * 700 / img.width)), Image.LANCZOS)
    img.quantize(colors=256, method=Image.Quantize.FASTOCTREE).save(png, optimize=True)
    raw.unlink()


def main(demo_out: str) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if chromium is None:
        raise SystemExit("no chromium binary (apt-get install chromium)")
    root = Path(demo_out)
    runs = load_runs([root / "results"])
    sections = build_report(runs, load_plugins().registry, root / "data", 0)
    with tempfile.TemporaryDirectory() as tmp:
        for key, parts in _groups(sections).items():
            if key not in KEYS:
                continue
            page = Path(tmp) / f"{key}.html"
            page.write_text(render_html(parts, f"Report section: {parts[0].title}"), encoding="utf-8")
            _shoot(chromium, page, HERE / f"report_{key}.png", Path(tmp) / "profile")
            print(f"wrote {HERE / f'report_{key}.png'}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "demo_out")
