"""Response-cache keys: a hash of everything that changes a model's answer, and nothing else.

Covered: the model's identity (name, version, args), the generation kwargs, every message's text, each
video's content identity and clip segments, the effective frame spec, the decoder version it resolves
to, hints for models that read them, and KEY_VERSION (bumped whenever request assembly changes).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Optional

from harness.contract.messages import ImagePart, Message, TextPart, VideoPart
from harness.frames.content_hash import HashStore, media_identity
from harness.frames.spec import FrameSpec

KEY_VERSION = 1


def canonical_messages(
    messages: list[Message], identities: Optional[dict[str, str]] = None, hashes: Optional[HashStore] = None
) -> list[dict[str, Any]]:
    """Messages as plain data with media replaced by content identities (raises on missing files);
    `identities`: path -> content identity already known for this run (`content_hash.hash_files`); a path not
    in it is hashed through `hashes`, the run's HashStore (None: hashed now, remembered nowhere)."""
    identities = identities or {}
    out = []
    for m in messages:
        parts: list[dict[str, Any]] = []
        for p in m.content:
            if isinstance(p, TextPart):
                parts.append({"text": p.text})
            elif isinstance(p, VideoPart):
                video = identities.get(p.ref.path) or media_identity(p.ref.path, hashes)
                part = {"video": video, "segments": p.ref.clip_key(), "label": p.label}
                if (
                    p.spec is not None
                ):  # a clip's own frame spec (only when set: other keys stay as they were)
                    part["spec"] = p.spec.canonical()
                if p.ref.fps is not None:  # a frame folder's rate (only when set, like spec)
                    part["fps"] = float(p.ref.fps)
                parts.append(part)
            elif isinstance(p, ImagePart):
                parts.append({"image": hashlib.sha256(p.image.tobytes()).hexdigest()[:32], "label": p.label})
        out.append({"role": m.role, "content": parts})
    return out


def response_key(
    model_identity: dict[str, Any],
    gen_kwargs: dict[str, Any],
    messages: list[Message],
    frame_spec: FrameSpec | None,
    decoder: str,
    hints: dict[str, Any] | None = None,
    identities: Optional[dict[str, str]] = None,
    hashes: Optional[HashStore] = None,
) -> str:
    """The sha256 key of one request (`identities`, `hashes`: see `canonical_messages`)."""
    payload = {
        "v": KEY_VERSION,
        "model": model_identity,
        "gen": gen_kwargs,
        "messages": canonical_messages(messages, identities, hashes),
        "frames": frame_spec.canonical() if frame_spec is not None else None,
        "decoder": decoder,
        "hints": hints,
    }
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()
