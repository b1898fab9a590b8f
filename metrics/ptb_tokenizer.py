"""A Java-free tokenizer reproducing pycocoevalcap's PTBTokenizer output on ordinary English.

pycocoevalcap runs Stanford CoreNLP 3.4.1's PTBTokenizer (-preserveLines -lowerCase) and then drops the
punctuation tokens in `PUNCTUATIONS`. This module reproduces that pipeline with regular expressions:
contractions split (do n't, ca n't, 's, 're, ...), brackets become -lrb-/-rrb- (which pycocoevalcap keeps,
since its list has the upper-case forms), quotes, commas, periods, colons and dashes are split off and
dropped, known abbreviations and acronyms keep their period. Exotic inputs (SGML-like tags, unusual Unicode)
may differ from CoreNLP; docs/metrics.md lists what is covered.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# pycocoevalcap.tokenizer.ptbtokenizer.PUNCTUATIONS (tokens dropped after tokenizing), lower-cased output.
PUNCTUATIONS = frozenset(
    ["''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-", ".", "?", "!", ",", ":", "-", "--", "...", ";"]
)

_BRACKETS = {"(": "-lrb-", ")": "-rrb-", "[": "-lsb-", "]": "-rsb-", "{": "-lcb-", "}": "-rcb-"}
_UNICODE = {
    "\u201c": ' " ',
    "\u201d": ' " ',
    "\u2018": "'",
    "\u2019": "'",
    "\u2013": " -- ",
    "\u2014": " -- ",
    "\u2026": " ... ",
    "\u00a0": " ",
    "\u00a3": " # ",  # CoreNLP normalises currency: pound -> #, euro -> $, cent -> cents
    "\u20ac": " $ ",
    "\u00a2": " cents ",
    "\u00a5": " \u00a5 ",
}
# Symbols CoreNLP always emits as their own token.
_SYMBOLS = re.compile(r'([$%*=|~^\\\u00b0"();\[\]{}]|\+(?!\d))')
# Abbreviations whose final period CoreNLP keeps (titles, months, days, company and address forms).
_ABBREVIATIONS = frozenset(
    """mr mrs ms mx dr drs prof profs sen sens rep reps gov govs gen col lt maj sgt capt cpl pvt adm rev hon
    pres st ste ave blvd rd jr sr bros esq messrs lieut brig det insp mt mfg
    inc co cos corp ltd plc dept univ assn intl sys natl elec invt bancorp bhd
    jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thurs fri
    nos pp etc vs cf al ft eg ie calif fla ala ariz colo conn mass mich minn okla tenn tex wash wisc wyo""".split()
)
_SPECIAL_WORDS = {
    "cannot": ["can", "not"],
    "gonna": ["gon", "na"],
    "gotta": ["got", "ta"],
    "wanna": ["wan", "na"],
    "lemme": ["lem", "me"],
    "gimme": ["gim", "me"],
    "'tis": ["'t", "is"],
    "'twas": ["'t", "was"],
}
_KEEP_LEADING_QUOTE = re.compile(r"^'(em|n'?|cause|tis|twas|s|re|ve|ll|d|m|\d\d?s?)$")
_CONTRACTION = re.compile(r"^(.+?)(n't|'s|'re|'ve|'ll|'d|'m)$", re.IGNORECASE)
_NUMBER = re.compile(r"^[-+]?\d[\d,.:/-]*$")


def _split_contractions(word: str) -> list[str]:
    """Split trailing clitics repeatedly: should've -> should 've, shouldn't've -> should n't 've."""
    low = word.lower()
    if low in _SPECIAL_WORDS:
        return list(_SPECIAL_WORDS[low])
    tail: list[str] = []
    while True:
        match = _CONTRACTION.match(word)
        if (
            not match
            or not re.search(r"[A-Za-z0-9]$", match.group(1).rstrip("'"))
            or match.group(1).endswith("'")
        ):
            break
        stem, clitic = match.group(1), match.group(2)
        if clitic.lower() == "n't" and not stem[-1:].isalpha():
            break
        tail.insert(0, clitic)
        word = stem
    return [word] + tail


def _period_token(word: str, next_word: str | None) -> list[str]:
    """Decide whether a word's final period belongs to it (abbreviation, acronym) or is split off."""
    stem = word[:-1]
    if not stem or stem.endswith("."):
        return [word.rstrip(".") or "...", "..."] if len(word) - len(word.rstrip(".")) > 1 else [stem, "."]
    if "." in stem and re.fullmatch(r"[A-Za-z](\.[A-Za-z])+", stem):
        return [word]  # acronym such as u.s. or p.m.
    if stem.lower() in _ABBREVIATIONS:
        return [word]
    if stem.lower() == "no" and next_word is not None and next_word[:1].isdigit():
        return [word]  # "No. 5" (CoreNLP's number abbreviation); "no." elsewhere ends a sentence
    if re.fullmatch(r"[A-Za-z]", stem):
        # A single letter keeps its period unless a capitalised word follows (then it ends a sentence).
        # At the end of a caption CoreNLP's choice depends on the other captions of its batch; the
        # period is kept here (what it does for a caption tokenized alone).
        if next_word is not None and next_word[:1].isupper():
            return [stem, "."]
        return [word]
    if len(stem) > 1 and stem.endswith("'") and not stem.lower().endswith("'n'"):
        return [stem[:-1], "'", "."]
    return [stem, "."]


def _split_chunk(chunk: str, next_chunk: str | None) -> list[str]:
    """Tokens of one whitespace-free chunk, before lower-casing and punctuation removal."""
    tokens: list[str] = []
    # Leading quotes, backticks and dashes.
    while chunk:
        if chunk[0] in "`" or (
            chunk[0] == "'" and not _KEEP_LEADING_QUOTE.match(chunk.lower().rstrip(".,;:!?'\""))
        ):
            if chunk.startswith("''") or chunk.startswith("``"):
                tokens.append(chunk[:2])
                chunk = chunk[2:]
            else:
                tokens.append(chunk[0])
                chunk = chunk[1:]
        elif chunk.startswith("--"):
            tokens.append("--")
            chunk = chunk[2:]
        elif chunk[0] == "-" and not re.match(r"-\d", chunk):
            tokens.append("-")
            chunk = chunk[1:]
        else:
            break
    # Trailing punctuation, peeled off from the right.
    trailing: list[str] = []
    while chunk:
        match = re.search(r"(\.{2,}|[?!]+|(?<=[?!])\.|[,;:'\-`]|--)$", chunk)
        if match is None:
            break
        piece = match.group(1)
        if piece == "'" and chunk.lower() in {"'n'"}:
            break
        trailing.insert(0, "..." if piece.startswith("..") else piece)
        chunk = chunk[: match.start()]
    if chunk:
        # Commas and colons inside a chunk split unless between digits (1,000 and 10:30 stay whole).
        chunk = re.sub(r"(?<=\d)'(?=\d)", " ' ", chunk)
        parts = [p for p in re.split(r"(?<!\d)([,:])|([,:])(?!\d)| ", chunk) if p]
        for i, part in enumerate(parts):
            if part in {",", ":"}:
                tokens.append(part)
                continue
            if part.endswith(".") and i == len(parts) - 1:
                follow = trailing[0] if trailing else next_chunk
                if trailing and trailing[0] == "," and not re.fullmatch(r"[\d.,]*\.\d+", part[:-1]):
                    tokens.extend(_split_contractions(part))  # a period before a comma stays (dog., no.,)
                    continue
                pieces = _period_token(part, None if trailing else follow)
                tokens.extend(_split_contractions(pieces[0]) + pieces[1:])
            else:
                tokens.extend(_split_contractions(part))
    return [t for t in tokens + trailing if t]


_URL = re.compile(r"^(?:(?:https?|ftp)://|www\.)\S+?(?=[.,;:!?]*$)", re.IGNORECASE)
_EMAIL = re.compile(r"^[A-Za-z0-9][^\s\"<>|(){}]*@[^\s\"<>|(){}.]+(?:\.[^\s\"<>|(){}.]+)*")
_SMILEYS = {":)", ":(", ":-)", ":-(", ";)", ";-)", ":d", ";d", ":-d"}
_WHOLE = {"c++", "c#", "f#"}
# Pieces (after the pre-splits) that are tokens as they are: y' (y'all), currency prefixes (US$, HK$).
_KEEP_WHOLE = re.compile(r"^(?:[Yy]'|[A-Z]{1,3}\$)$")
# Pre-splits CoreNLP's lexer makes inside a chunk (patterns, replacement).
_PRESPLITS = [
    (re.compile(r"(?<![A-Za-z0-9])#(?=\d)"), " # "),  # #3 -> # 3
    (re.compile(r"(\d[\d,]*\.\d+)(?=[A-Za-z])"), r"\1 "),  # 2.5km -> 2.5 km (3kg stays whole)
    (re.compile(r"^([A-Za-z]+\d+)(?=(?:\.\d+)+[.,;:!?]*$)"), r"\1 "),  # v1.2.3 -> v1 .2.3
    (re.compile(r"^([Nn][Oo]\.)(?=\d)"), r"\1 "),  # No.5 -> No. 5
    (re.compile(r"(?<=[A-Za-z])'n'(?=[A-Za-z])"), " 'n' "),  # rock'n'roll
    (re.compile(r"^([Yy]')(?=[A-Za-z])"), r"\1 "),  # y'all -> y' all
    (re.compile(r"^([A-Z]{1,3}\$)(?=\d)"), r"\1 "),  # US$3 -> US$ 3
    (re.compile(r"\+(?=\d)"), " +"),  # +3 stays signed, 3+4 -> 3 +4
    (re.compile(r"(?<![A-Z])&|&(?![A-Z])"), " & "),  # AT&T, R&D stay whole
]


def _chunk_tokens(chunk: str, next_chunk: str | None) -> list[str]:
    """Tokens of one whitespace-separated chunk: URL, e-mail, smiley and named tokens first, else the rules."""
    low = chunk.lower()
    if low in _SMILEYS:
        return [chunk.replace(")", "-rrb-").replace("(", "-lrb-")]
    bare = chunk.rstrip(".,;:!?")
    if bare.lower() in _WHOLE:
        return [bare] + (_split_chunk(chunk[len(bare) :], next_chunk) if len(bare) < len(chunk) else [])
    url = _URL.match(chunk) or _EMAIL.match(chunk)
    if url and "@" in url.group(0) and not chunk.endswith("."):
        return [chunk]  # CoreNLP's e-mail token keeps trailing , ! ?
    if url:
        rest = chunk[url.end() :]
        return [url.group(0)] + (_split_chunk(rest, next_chunk) if rest else [])
    for pattern, repl in _PRESPLITS:
        chunk = pattern.sub(repl, chunk)
    out: list[str] = []
    pieces = chunk.split()
    for i, piece in enumerate(pieces):
        follow = pieces[i + 1] if i + 1 < len(pieces) else next_chunk
        if _KEEP_WHOLE.match(piece):
            out.append(piece)
            continue
        subs = _SYMBOLS.sub(r" \1 ", piece).split()
        for k, sub in enumerate(subs):
            if sub in _BRACKETS:
                out.append(_BRACKETS[sub])
            elif sub != '"':
                out.extend(_split_chunk(sub, subs[k + 1] if k + 1 < len(subs) else follow))
    return out


def ptb_tokenize(text: str) -> str:
    """Tokenize one caption as pycocoevalcap does (PTB tokens, lower-cased, punctuation dropped), space-joined."""
    if not isinstance(text, str):
        raise ValueError(f"ptb_tokenize: expected a string caption, got {type(text).__name__}")
    for src, dst in _UNICODE.items():
        text = text.replace(src, dst)
    chunks = text.split()
    out: list[str] = []
    for i, chunk in enumerate(chunks):
        out.extend(_chunk_tokens(chunk, chunks[i + 1] if i + 1 < len(chunks) else None))
    lowered = (t.lower() for t in out)
    return " ".join(
        t
        for t in lowered
        if t not in PUNCTUATIONS and t.upper() not in {"-LCB-", "-RCB-"} or t in _BRACKETS.values()
    )


def tokenize_corpus(captions: Iterable[str]) -> list[str]:
    """ptb_tokenize over many captions."""
    return [ptb_tokenize(c) for c in captions]
