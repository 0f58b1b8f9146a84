"""Where a backend sends what it is given: this machine, or a host elsewhere.

The approval gate lets reads of the session's own data run without asking when their results
stay on this machine (docs/approvals.md); this module answers the "where" part from the backend
alone, without contacting anything:

* the embedded model (``local``) runs here;
* an OpenAI-compatible server whose host is loopback (127.0.0.0/8, ::1, ``localhost``) runs here;
* any other endpoint (OpenAI, Gemini, Vertex AI, a server on another machine) is elsewhere, named
  by its host;
* a backend that does not say where it sends (scripted, replayed, a third-party subclass) counts
  as elsewhere, so nothing is let through on a guess.

``SHELL_AGENT_LAB_LOOPBACK_IS_REMOTE=1`` treats loopback endpoints as elsewhere too: the tests
use it to drive the remote path against a model server started on 127.0.0.1.
"""
from __future__ import annotations

import ipaddress
import os
from typing import Any, Mapping
from urllib.parse import urlparse

__all__ = ["LOOPBACK_IS_REMOTE_ENV", "is_loopback_host", "model_host"]

LOOPBACK_IS_REMOTE_ENV = "SHELL_AGENT_LAB_LOOPBACK_IS_REMOTE"
_GEMINI_HOST = "generativelanguage.googleapis.com"
_VERTEX_HOST = "aiplatform.googleapis.com"


def is_loopback_host(host: str | None) -> bool:
    """Whether ``host`` names this machine: ``localhost``, 127.0.0.0/8 or ::1 (a literal, not resolved)."""
    if not host:
        return False
    host = host.strip("[]").lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _host_of(url: str | None) -> str:
    return (urlparse(str(url)).hostname or "") if url else ""


def model_host(backend: Any, env: Mapping[str, str] | None = None) -> str | None:
    """``None`` when ``backend`` runs on this machine; otherwise the host (or a description of
    where) its requests go."""
    env = os.environ if env is None else env
    loopback_is_remote = (env.get(LOOPBACK_IS_REMOTE_ENV) or "").strip().lower() in ("1", "true", "yes")
    kind = getattr(backend, "name", "") or type(backend).__name__
    if kind == "local":
        return None
    if kind == "openai":
        host = _host_of(getattr(backend, "base_url", None)) or "api.openai.com"
        return None if is_loopback_host(host) and not loopback_is_remote else host
    if kind in ("gemini", "vertex"):
        where = getattr(backend, "where", "")
        host = _host_of(where) if "://" in str(where) else ""
        host = host or (_VERTEX_HOST if kind == "vertex" else _GEMINI_HOST)
        return None if is_loopback_host(host) and not loopback_is_remote else host
    return f"the {kind} model"
