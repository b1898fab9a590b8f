"""Which PTB tokenizer the caption metrics use: pycocoevalcap's Java one when it can run, else the Python port.

pycocoevalcap tokenizes with Stanford CoreNLP 3.4.1's PTBTokenizer (`java -cp stanford-corenlp-3.4.1.jar
edu.stanford.nlp.process.PTBTokenizer -preserveLines -lowerCase`) and drops its punctuation tokens. When Java
and pycocoevalcap are installed, `tokenize_captions` calls exactly that (`PTBTokenizer().tokenize`, one Java
process per batch, as COCOEvalCap tokenizes the references and the candidates in one batch each). Otherwise it
uses `harness_metrics.ptb_tokenizer.ptb_tokenize`, the Java-free port (docs/metrics.md lists how closely it matches).
`HARNESS_PTB_TOKENIZER` = `auto` (default) | `java` (fail if Java cannot run) | `python` (always the port).
`active_tokenizer()` names the one in use; results record it.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from functools import lru_cache

from harness_metrics.ptb_tokenizer import ptb_tokenize

JAVA_NAME = "pycocoevalcap PTBTokenizer (Stanford CoreNLP 3.4.1, Java)"
PYTHON_NAME = "harness_metrics.ptb_tokenizer (Python port of the PTBTokenizer)"
ENV = "HARNESS_PTB_TOKENIZER"
# Characters that would end a line inside CoreNLP with -preserveLines and shift every later caption.
_LINE_BREAKS = str.maketrans({c: " " for c in "\n\r\x0b\x0c\x85\u2028\u2029"})


@lru_cache(maxsize=1)
def java_available() -> bool:
    """True when the `java` executable and pycocoevalcap (with its CoreNLP jar) are both installed.

    pycocoevalcap is not part of the core install (it is in the `test` extra): without it the caption metrics
    use the Python port even where Java is present, and results record which tokenizer ran."""
    if shutil.which("java") is None:
        return False
    try:  # a dotted find_spec imports the parents: a missing pycocoevalcap raises instead of returning None
        spec = importlib.util.find_spec("pycocoevalcap.tokenizer.ptbtokenizer")
    except ImportError:
        return False
    if spec is None or spec.origin is None:
        return False
    return os.path.exists(os.path.join(os.path.dirname(spec.origin), "stanford-corenlp-3.4.1.jar"))


def _mode() -> str:
    mode = os.environ.get(ENV, "auto").strip().lower() or "auto"
    if mode not in ("auto", "java", "python"):
        raise ValueError(f"{ENV}={mode!r}: expected auto, java or python")
    if mode == "java" and not java_available():
        raise RuntimeError(
            f"{ENV}=java but Java or pycocoevalcap is missing; install both (`pip install pycocoevalcap`, a JRE) "
            f"or set {ENV}=python to use the Python port"
        )
    return mode


def active_tokenizer() -> str:
    """The name of the tokenizer `tokenize_captions` uses now (recorded in results)."""
    mode = _mode()
    return JAVA_NAME if mode == "java" or (mode == "auto" and java_available()) else PYTHON_NAME


def java_tokenize(captions: Sequence[str]) -> list[str]:
    """pycocoevalcap's PTBTokenizer over one batch of captions (one Java process), in input order.

    The same command, input and output handling as `PTBTokenizer.tokenize` (its jar, its PUNCTUATIONS),
    except that the temporary file goes to the system temp folder (not into the installed package) and
    CoreNLP's progress line on stderr is captured instead of printed.
    """
    from pycocoevalcap.tokenizer import ptbtokenizer as ref

    if not captions:
        return []
    jar_dir = os.path.dirname(os.path.abspath(ref.__file__))
    sentences = "\n".join(c.replace("\n", " ").translate(_LINE_BREAKS) for c in captions)
    with tempfile.TemporaryDirectory(prefix="harness-ptb-") as tmp:
        path = os.path.join(tmp, "captions.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write(sentences)
        cmd = ["java", "-cp", ref.STANFORD_CORENLP_3_4_1_JAR, "edu.stanford.nlp.process.PTBTokenizer"]
        cmd += ["-preserveLines", "-lowerCase", path]
        try:
            done = subprocess.run(cmd, cwd=jar_dir, capture_output=True, check=True)
        except (OSError, subprocess.SubprocessError) as err:
            raise RuntimeError(
                f"pycocoevalcap's Java PTBTokenizer failed ({err}); fix the Java install or set {ENV}=python"
            ) from None
    lines = done.stdout.decode("utf-8").split("\n")
    if len(lines) < len(captions):
        raise RuntimeError(
            f"pycocoevalcap's Java PTBTokenizer returned {len(lines)} of {len(captions)} captions; "
            f"set {ENV}=python to use the Python port"
        )
    drop = set(ref.PUNCTUATIONS)
    return [" ".join(w for w in line.rstrip().split(" ") if w not in drop) for line in lines[: len(captions)]]


#: Java's tokens of captions seen before (`tokenize_captions(..., memo=True)`), at most _MEMO_MAX, then
#: emptied. A process-level store by necessity (tests/test_core_house.py allows it by name): a task's
#: prepare_scoring fills it in one batch and its per-sample score reads it, and neither hook's signature
#: carries a run object; what it holds is a function of the caption alone.
_tokens: dict[str, str] = {}
_MEMO_MAX = 200_000


def tokenize_captions(captions: Sequence[str], memo: bool = False) -> list[str]:
    """Tokenize one batch of captions with the active tokenizer (PTB tokens, lower-cased, space-joined).

    memo=True (for per-sample scoring, one sample at a time) reuses a caption's Java tokens from an earlier
    call and sends only new captions to Java, in one batch. CoreNLP's tokens for a caption ending in a single
    letter or abbreviation plus a period can depend on the next line of its batch; without memo each call is
    one batch, exactly as COCOEvalCap.
    """
    for i, c in enumerate(captions):
        if not isinstance(c, str):
            raise ValueError(f"captions[{i}]: expected a string caption, got {type(c).__name__}")
    if active_tokenizer() != JAVA_NAME:
        return [ptb_tokenize(c) for c in captions]
    if not memo:
        return java_tokenize(list(captions))
    missing = list(dict.fromkeys(c for c in captions if c not in _tokens))
    if missing:
        if len(_tokens) + len(missing) > _MEMO_MAX:
            _tokens.clear()
        _tokens.update(zip(missing, java_tokenize(missing), strict=True))
    return [_tokens[c] for c in captions]


def prefetch_tokens(captions: Sequence[str]) -> None:
    """Tokenize captions ahead, in one batch, for later `tokenize_captions(..., memo=True)` calls.

    Per-sample scoring tokenizes one reply at a time; calling this first with every reply and reference of a
    task makes that one Java process for the whole task instead of one per reply. The Python port runs
    in-process and has nothing to gain, so it is left alone."""
    if active_tokenizer() == JAVA_NAME:
        tokenize_captions(captions, memo=True)
