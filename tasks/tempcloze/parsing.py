"""Lenient parsing of the `{"answer": "A".."D", "reason": ...}` reply, and of several sampled replies.

Tried in order (the public evaluation's two JSON paths come first, so every answer it accepts is read the
same way): a fenced code block, the whole reply, the span from the first "{" to the last "}"; then, as this
harness's extension, a bare letter ("B", "(B)", "Answer: B"). `Parsed.extra["via"]` records which path
matched, so results can show how many answers only the extension accepted.

With the `attempts` option K > 1 (the public evaluation's retry protocol: up to 3 tries of the same
request, the first reply it can parse counts) the request asks for K replies and the first parsable one
is the answer; `extra["attempt"]` says which (1-based), and an answer is invalid only when none of the K
replies parses.
"""

from __future__ import annotations

import json
import re
from typing import Any, Optional

from harness.api import Parsed, Response
from harness_tasks.tempcloze.protocol import LETTERS, dimension_of, kind_of

_FENCE = re.compile(r"```(?:json|JSON)?\s*([\s\S]*?)```")
_BARE = re.compile(
    r"^\W*(?:(?:final\s+)?answer\s*(?:is)?\s*[:\-]?\s*)?[\(\[<\"']?([A-D])[\)\]>\"']?[\s.!]*$", re.I
)


def _letter(value: Any, letters: tuple[str, ...]) -> Optional[str]:
    if not isinstance(value, str):
        return None
    s = value.strip().upper()
    if len(s) >= 3 and s[0] == "<" and s[-1] == ">":
        s = s[1:-1].strip()
    return s if s in letters else None


def _from_json(text: str, letters: tuple[str, ...]) -> Optional[tuple[str, str]]:
    try:
        obj = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return None
    if not isinstance(obj, dict):
        return None
    letter = _letter(obj.get("answer"), letters)
    if letter is None:
        return None
    reason = obj.get("reason")
    return letter, reason if isinstance(reason, str) else ""


def parse_letter(text: str, letters: tuple[str, ...] = LETTERS) -> tuple[Optional[str], str, str]:
    """(letter or None, reason, how it was found: fenced_json | json | braces | bare_letter | why not)."""
    raw = (text or "").strip()
    if not raw:
        return None, "", "empty reply"
    fence = _FENCE.search(raw)
    if fence:
        got = _from_json(fence.group(1).strip(), letters)
        if got:
            return got[0], got[1], "fenced_json"
    if raw.startswith("```"):  # an unclosed fence: drop the opening line
        raw = "\n".join(raw.split("\n")[1:]).strip()
    got = _from_json(raw, letters)
    if got:
        return got[0], got[1], "json"
    start, end = raw.find("{"), raw.rfind("}")
    if start != -1 and end > start:
        got = _from_json(raw[start : end + 1], letters)
        if got:
            return got[0], got[1], "braces"
    m = _BARE.match(raw)
    if m and m.group(1).upper() in letters and (m.group(1).isupper() or len(raw) > 1):
        return m.group(1).upper(), "", "bare_letter"
    return None, "", 'no answer letter A-D found (expected JSON {"answer": "A".."D", ...})'


def _choice(doc: dict, letter: Optional[str]) -> dict[str, Any]:
    if letter is None:
        return {"chosen": None, "chosen_kind": None, "chosen_dimension": None}
    clip = doc["options"][LETTERS.index(letter)]
    return {"chosen": clip, "chosen_kind": kind_of(clip), "chosen_dimension": dimension_of(clip)}


def _replies(response: Response) -> Optional[list]:
    samples = (response.structured or {}).get("samples") if isinstance(response.structured, dict) else None
    return samples if isinstance(samples, list) and samples else None


def _first_parsable(response: Response, doc: dict, letters: tuple[str, ...]) -> tuple:
    """(letter, reason, via, attempt) over the first `attempts` replies (attempt 0: none parsed)."""
    texts = (_replies(response) or [response.text])[: int(doc.get("attempts", 1))]
    via = "empty reply"
    for i, text in enumerate(texts):
        letter, reason, via = parse_letter(str(text or ""), letters)
        if letter:
            return letter, reason, via, i + 1
    return None, "", f"{via} (in {len(texts)} of {int(doc.get('attempts', 1))} attempts)", 0


def parse(response: Response, doc: dict) -> Parsed:
    """The parse hook: the first (or only) answer; with several samples, every sample's letter too; with
    several attempts, the first parsable reply."""
    letters = LETTERS[: len(doc["options"])]
    if int(doc.get("attempts", 1)) > 1:
        letter, reason, via, attempt = _first_parsable(response, doc, letters)
    else:
        letter, reason, via = parse_letter(response.text, letters)
        attempt = None
    extra: dict[str, Any] = {"via": via if letter else None, "reason": reason, **_choice(doc, letter)}
    if attempt is not None:
        extra["attempt"] = attempt
    samples = _replies(response)
    if int(doc.get("n_samples", 1)) > 1:
        texts = samples or [response.text]
        extra["samples"] = [parse_letter(str(t), letters)[0] for t in texts]
    if letter is None:
        return Parsed(answer=None, valid=False, note=via, extra=extra)
    return Parsed(answer=letter, valid=True, extra=extra)
