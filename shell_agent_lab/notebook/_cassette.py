"""Replay a recorded model for this kernel (``SHELL_AGENT_LAB_CASSETTE``): how the example
notebooks run offline and deterministically under nbval.

With ``SHELL_AGENT_LAB_CASSETTE=/path/name.json`` the kernel's settings get a ``replay`` profile
on that cassette and use it. Recording (``SHELL_AGENT_LAB_REPLAY=record`` or
``record-missing``) asks the source model — the embedded local one unless
``SHELL_AGENT_LAB_CASSETTE_SOURCE`` names a configured profile or holds one as JSON
(``{"backend": "local", "options": {"model_path": "…gguf"}}``). Without the variable nothing
changes: a user opening the notebook talks to the real model.
"""
from __future__ import annotations

import json
from typing import Any, Mapping

__all__ = ["ENV_CASSETTE", "ENV_SOURCE", "apply_cassette"]

ENV_CASSETTE = "SHELL_AGENT_LAB_CASSETTE"
ENV_SOURCE = "SHELL_AGENT_LAB_CASSETTE_SOURCE"


def apply_cassette(settings: Any, environ: Mapping[str, str]) -> bool:
    """Point ``settings`` at the cassette named in the environment; False when none is."""
    path = (environ.get(ENV_CASSETTE) or "").strip()
    if not path:
        return False
    raw = (environ.get(ENV_SOURCE) or "").strip()
    source: Any = raw or {"backend": "local"}
    if raw.startswith("{"):
        try:
            source = json.loads(raw)
        except ValueError as exc:
            raise ValueError(f"{ENV_SOURCE} is not valid JSON: {exc}") from None
    profiles = dict(settings.profiles)
    profiles["replay"] = {"backend": "replay",
                          "options": {"cassette": path, "source": source}}
    settings.profiles = profiles
    settings.profile = "replay"
    return True
