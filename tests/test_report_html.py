"""The HTML report in headless Chromium: it loads without errors, every image decodes, and the screenshot
shows the tables (with the chance-band shading) and the plots. Skipped when no Chromium is installed
(CI installs it: Debian's `chromium` package)."""

from __future__ import annotations

import io
import re
import shutil
import subprocess

import numpy as np
import pytest
from test_report import make_color_runs

from harness.plugins.registry import Entry, Registry
from harness.report import Cell, ReportSection, Table, load_runs
from harness.report.engine import build_report, write_report

CHROMIUM = next(
    (p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p), None
)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary (apt-get install chromium)")

# Injected into a copy of the page: records script errors and checks every <img> decoded.
PROBE = """<script>
window.__errs = [];
window.addEventListener('error', function (e) { window.__errs.push(String(e.message || e.type)); }, true);
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var broken = imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); }).length;
  var width = document.documentElement.clientWidth;
  var sticking = Array.prototype.slice.call(document.querySelectorAll('body *')).filter(function (e) {
    return !e.closest('div.scroll') && e.getBoundingClientRect().right > width + 1;
  }).length;
  var wrapped = Array.prototype.slice.call(document.getElementsByTagName('table')).filter(function (t) {
    return t.parentElement.className === 'scroll';
  }).length;
  var d = document.createElement('div'); d.id = 'probe';
  d.textContent = 'imgs=' + imgs.length + ' broken=' + broken + ' tables=' +
    document.getElementsByTagName('table').length + ' errors=' + window.__errs.length +
    ' sticking=' + sticking + ' wrapped=' + wrapped;
  document.body.appendChild(d);
});
</script>"""


def _chromium(tmp_path, *args: str) -> subprocess.CompletedProcess:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", "--enable-logging=stderr", "--v=0",
             f"--user-data-dir={tmp_path / 'profile'}"]  # fmt: skip
    return subprocess.run([CHROMIUM, *flags, *args], capture_output=True, text=True, timeout=120)


def colors_section(runs: list[dict]) -> list[ReportSection]:
    """A plugin-style renderer: accuracy with the 5-answer chance level (20 %) as the shading's origin."""
    table = Table("colors: accuracy vs chance", ["colors_qa"])
    for r in runs:
        m = r["task_results"]["colors_qa"]["metrics"]["accuracy"]
        table.add_row(r["_label"], [Cell(m["value"], tuple(m["ci"]), m["n"], chance=0.2)])
    return [ReportSection("Colours", "chance-shaded table", [table])]


@pytest.fixture(scope="module")
def report_page(tmp_path_factory, colors_root):
    root = tmp_path_factory.mktemp("html_report")
    paths = make_color_runs(root / "runs", colors_root)
    runs = load_runs([paths[k] for k in ("oracle", "random1", "scripted")])
    registry = Registry()
    registry.add(Entry("report", "colors", colors_section, plugin="test"))
    files = write_report(build_report(runs, registry, colors_root, n_samples=1), root / "report")
    return files


def test_html_loads_without_errors_and_every_image_decodes(report_page, tmp_path):
    page = report_page.html.read_text()
    assert "<script" not in page and "http://" not in page and "https://" not in page  # self-contained
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("<head>", "<head>" + PROBE, 1))
    done = _chromium(tmp_path, "--window-size=800,2000", "--virtual-time-budget=5000", "--dump-dom", probe.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(
        r'<div id="probe">imgs=(\d+) broken=(\d+) tables=(\d+) errors=(\d+) sticking=(\d+) wrapped=(\d+)</div>',
        done.stdout,
    )
    assert found, done.stdout[-2000:]
    imgs, broken, tables, errors, sticking, wrapped = map(int, found.groups())
    assert imgs == page.count("<img ") and imgs >= 2 and broken == 0 and errors == 0
    assert tables == page.count("<table>") == wrapped  # every table scrolls inside its own box
    assert sticking == 0  # at 800 px nothing outside a table box runs past the page's right edge
    assert "CONSOLE" not in done.stderr and "Uncaught" not in done.stderr


def test_screenshot_shows_tables_and_plots(report_page, tmp_path):
    from matplotlib.image import imread

    shot = tmp_path / "shot.png"
    done = _chromium(tmp_path, "--window-size=1280,2400", f"--screenshot={shot}", report_page.html.as_uri())
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    img = imread(io.BytesIO(shot.read_bytes()))[..., :3]
    assert img.std() > 0.05  # not a blank page
    dark = (img.max(axis=2) < 0.3).mean()
    assert dark > 0.002  # text and table rules
    green = (img[..., 1] > img[..., 0] + 0.15) & (img[..., 1] > img[..., 2] + 0.1)
    assert green.mean() > 0.001  # shaded cells (oracle's 100 % in the chance-to-best band)
    blue = (img[..., 2] > img[..., 0] + 0.3) & (img[..., 2] > 0.5)
    assert blue.sum() > 500  # the overview bar chart's bars
    assert np.isfinite(img).all()
