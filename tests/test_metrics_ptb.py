"""The PTB tokenizer the caption metrics use: pycocoevalcap's Java one when present, the Python port otherwise,
and how closely the port matches Java on a large varied corpus (tests/ptb_corpus.py)."""

import json
import shutil
import subprocess
import sys

import pytest
from ptb_corpus import corpus

from conftest import harness_env, without_packages
from harness_metrics import bleu4, cider_d, ptb_tokenize
from harness_metrics.ptb_java import (
    JAVA_NAME,
    PYTHON_NAME,
    active_tokenizer,
    java_available,
    tokenize_captions,
)

java_missing = shutil.which("java") is None or not java_available()

# Where the port and CoreNLP 3.4.1 still differ (docs/metrics.md lists them); anything else is a regression.
KNOWN_DIFFERENCES = {
    "The file is named report_v2.pdf, not report.doc.",
    "ID: A-123/B, code #42, ref. no. 7.",
    "Call 555-1234 or +1 (800) 555-0000.",
    "A B. C.",
    "5'10\" 4x4 red on cube red blue Mr..",
    "O'clock sphere of a red sphere cube a...",
}


def test_port_handles_units_currency_hash_urls_and_names_without_java():
    assert ptb_tokenize("Player #3 ran 2.5km for £5 and €10.") == "player # 3 ran 2.5 km for # 5 and $ 10"
    assert ptb_tokenize("See http://x.org/a?b=1&c=2, then C++ and AT&T.") == (
        "see http://x.org/a?b=1&c=2 then c++ and at&t"
    )
    assert ptb_tokenize("y'all saw rock'n'roll nothin' US$3") == "y' all saw rock 'n' roll nothin us$ 3"


def test_python_mode_forces_the_port(monkeypatch):
    monkeypatch.setenv("HARNESS_PTB_TOKENIZER", "python")
    assert active_tokenizer() == PYTHON_NAME
    assert tokenize_captions(["The dog's #3 bone."]) == ["the dog 's # 3 bone"]
    monkeypatch.setenv("HARNESS_PTB_TOKENIZER", "perl")
    with pytest.raises(ValueError, match="HARNESS_PTB_TOKENIZER"):
        active_tokenizer()


def test_java_without_pycocoevalcap_falls_back_to_the_port(tmp_path):
    # a core install (pycocoevalcap is only in the test extra) on a machine with Java: the caption metrics
    # must not fail with ModuleNotFoundError, they use the Python port and say so
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "java").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "java").chmod(0o755)
    env = without_packages(harness_env(), tmp_path / "site", "pycocoevalcap")
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    env.pop("HARNESS_PTB_TOKENIZER", None)
    code = (
        "import json; from harness_metrics.ptb_java import active_tokenizer, tokenize_captions; "
        "print(json.dumps([active_tokenizer(), tokenize_captions(['The dog\\'s bone.'])]))"
    )
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [PYTHON_NAME, ["the dog 's bone"]]


@pytest.mark.skipif(java_missing, reason="Java and pycocoevalcap are needed for the reference tokenizer")
def test_port_matches_java_on_the_varied_corpus_except_the_documented_cases():
    sentences = corpus()
    assert len(sentences) > 1000
    java = tokenize_captions(sentences)  # Java in auto mode, one batch as COCOEvalCap
    differ = {s for s, j in zip(sentences, java, strict=True) if ptb_tokenize(s) != j}
    assert differ == KNOWN_DIFFERENCES


@pytest.mark.skipif(java_missing, reason="Java and pycocoevalcap are needed for the reference tokenizer")
def test_metrics_use_the_java_tokenizer_when_present(monkeypatch):
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    monkeypatch.delenv("HARNESS_PTB_TOKENIZER", raising=False)
    assert active_tokenizer() == JAVA_NAME
    cands = ["the file report_v2.pdf, not report.doc is red", "a man calls +1 (800) 555-0000 today"]
    refs = [["the report_v2.pdf, file is red", "a red file"], ["a man calls (800) 555-0000 now"]]
    tok = PTBTokenizer()
    gts = tok.tokenize({i: [{"caption": r} for r in rs] for i, rs in enumerate(refs)})
    res = tok.tokenize({i: [{"caption": c}] for i, c in enumerate(cands)})
    assert bleu4(cands, refs) == pytest.approx(Bleu(4).compute_score(gts, res, verbose=0)[0][3], abs=1e-12)
    assert cider_d(cands, refs) == pytest.approx(Cider().compute_score(gts, res)[0], abs=1e-12)
    memo = tokenize_captions(cands, memo=True)
    assert memo == [res[0][0], res[1][0]] == tokenize_captions(cands, memo=True)
