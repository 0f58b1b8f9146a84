"""Which model backend a kernel would use, and whether it answers — without starting anything.

:func:`plan_backend` asks the kernel's own selection (``llm.selection.resolve_profile``: an
explicit profile → ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` → Vertex AI / ``GEMINI_API_KEY`` /
``GOOGLE_API_KEY`` → LM Studio → Ollama → the embedded model → nothing) and describes the result.
:func:`probe` asks the chosen endpoint a cheap question with a short timeout. API keys are read
to send them, never printed.
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from typing import Any, Callable, Mapping

__all__ = ["BackendPlan", "ProbeResult", "plan_backend", "probe", "port_open", "local_model_installed"]

_GEMINI_API = "https://generativelanguage.googleapis.com/v1beta"


@dataclass(frozen=True)
class BackendPlan:
    backend: str                 # openai | gemini | vertex | local | scripted | replay | none
    model: str | None
    endpoint: str | None
    reason: str                  # why this backend, in words
    profile: str | None = None
    key_env: str | None = None   # the environment variable that holds the key (never its value)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ProbeResult:
    status: str                  # ok | warn | fail
    detail: str


def port_open(host: str, port: int, timeout: float = 0.3) -> bool:
    """True when something accepts TCP connections on ``host:port``."""
    from ..llm.selection import port_open as _probe

    return _probe(host, port, timeout)


def local_model_installed() -> bool:
    """True when the ``local`` extra (llama.cpp runtime and the bundled model) is available."""
    from .._config_file import ConfigFileError
    from ..llm.local import local_model_available

    try:
        return local_model_available()
    except ConfigFileError:  # the data dir is unknown; the configuration check reports why
        return False


def _reason(profile: Any, chosen: str | None, env: Mapping[str, str]) -> str:
    """Why auto-detection (or configuration) picked ``profile``, in words."""
    if chosen:
        return f"profile {chosen!r}"
    if profile.backend == "openai":
        if env.get("OPENAI_API_KEY"):
            return "OPENAI_API_KEY is set"
        if env.get("OPENAI_BASE_URL"):
            return "OPENAI_BASE_URL is set"
        return {"http://127.0.0.1:1234/v1": "LM Studio answers on 127.0.0.1:1234",
                "http://127.0.0.1:11434/v1": "Ollama answers on 127.0.0.1:11434"}.get(
                    profile.endpoint, f"a server answers at {profile.endpoint}")
    if profile.backend == "vertex":
        return "GOOGLE_GENAI_USE_VERTEXAI is set"
    if profile.backend == "gemini":
        return "GEMINI_API_KEY is set" if env.get("GEMINI_API_KEY") else "GOOGLE_API_KEY is set"
    if profile.backend == "local":
        return "the embedded model (local extra) is installed"
    return f"{profile.backend} backend"


def _describe(profile: Any, env: Mapping[str, str]) -> tuple[str | None, str | None, str | None]:
    """(model, endpoint, key variable) as a person would want them shown."""
    from ..llm.gemini_backend import DEFAULT_GEMINI_MODEL
    from ..llm.openai_backend import DEFAULT_OPENAI_MODEL

    model = profile.model or None
    if profile.backend == "openai":
        endpoint = profile.endpoint or env.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        if model is None and not (profile.endpoint or env.get("OPENAI_BASE_URL")):
            model = DEFAULT_OPENAI_MODEL
        return model, endpoint, profile.api_key_env or "OPENAI_API_KEY"
    if profile.backend == "gemini":
        key_env = profile.api_key_env or ("GEMINI_API_KEY" if env.get("GEMINI_API_KEY") or not
                                          env.get("GOOGLE_API_KEY") else "GOOGLE_API_KEY")
        return model or DEFAULT_GEMINI_MODEL, profile.endpoint or _GEMINI_API, key_env
    if profile.backend == "vertex":
        project = profile.options.get("project") or env.get("GOOGLE_CLOUD_PROJECT") or "?"
        location = profile.options.get("location") or env.get("GOOGLE_CLOUD_LOCATION") or "us-central1"
        return model or DEFAULT_GEMINI_MODEL, f"project {project}, {location}", None
    if profile.backend == "local":
        return model or "Qwen2.5-Coder-1.5B-Instruct", "embedded llama.cpp", None
    return model, profile.endpoint or None, None


def plan_backend(settings: Any, env: Mapping[str, str], *, profile: str | None = None,
                 port_is_open: Callable[[str, int], bool] | None = None,
                 local_installed: Callable[[], bool] | None = None) -> BackendPlan:
    """The backend a new session would use with ``settings`` (a ``ShellAgent``) and ``env``.

    The choice itself is :func:`shell_agent_lab.llm.selection.resolve_profile` — the same
    function the kernel uses — so this never disagrees with what a notebook would do.
    """
    from ..llm.errors import ConfigurationError
    from ..llm.selection import resolve_profile

    chosen = profile or getattr(settings, "profile", None) or None
    try:
        resolved = resolve_profile(settings, profile, env=env, probe=port_is_open or port_open,
                                   local_available=local_installed or local_model_installed)
    except ConfigurationError as exc:
        reason = exc.message if chosen else "nothing is configured"
        return BackendPlan("none", None, None, reason, chosen)
    model, endpoint, key_env = _describe(resolved, env)
    return BackendPlan(resolved.backend, model, endpoint, _reason(resolved, chosen, env), chosen, key_env)


_HOW_TO = ("set OPENAI_API_KEY (or OPENAI_BASE_URL for a local server), set GEMINI_API_KEY, start "
           "LM Studio or Ollama, or pip install 'shell-agent-lab[local]'")


def _http_get(url: str, headers: dict[str, str], timeout: float) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers=headers, method="GET")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 (http/https only)
            return response.status, response.read(1 << 20)
    except urllib.error.HTTPError as exc:
        return exc.code, b""


def probe(plan: BackendPlan, env: Mapping[str, str], *, timeout: float = 3.0,
          http_get: Callable[[str, dict[str, str], float], tuple[int, bytes]] = _http_get) -> ProbeResult:
    """Ask the planned backend a cheap question (list models) within ``timeout`` seconds."""
    if plan.backend == "none":
        return ProbeResult("fail", f"no model backend: {plan.reason}; {_HOW_TO}")
    if plan.backend == "local":
        if local_model_installed():
            return ProbeResult("ok", "embedded model installed; it starts on first use (~2 GB RAM)")
        return ProbeResult("fail", "the embedded model is not installed; pip install 'shell-agent-lab[local]'")
    if plan.backend == "vertex":
        return ProbeResult("warn", "Vertex AI is not probed (credentials come from Google Cloud "
                                   "application-default login); a first question will tell")
    if plan.backend in ("scripted", "replay"):
        return ProbeResult("ok", f"{plan.backend} backend needs no endpoint")
    if plan.backend == "gemini":
        key = env.get(plan.key_env or "", "")
        if not key:
            return ProbeResult("fail", f"{plan.key_env} is not set")
        url, headers = f"{plan.endpoint}/models?pageSize=1", {"x-goog-api-key": key}
    else:
        key = env.get(plan.key_env or "OPENAI_API_KEY", "") or "not-needed"
        url = f"{(plan.endpoint or '').rstrip('/')}/models"
        headers = {"Authorization": f"Bearer {key}"}
    if not url.startswith(("http://", "https://")):
        return ProbeResult("fail", f"endpoint {plan.endpoint!r} is not an http(s) URL")
    try:
        status, body = http_get(url, headers, timeout)
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return ProbeResult("fail", f"{plan.endpoint} does not answer ({reason}); is the server running?")
    if status in (401, 403):
        return ProbeResult("fail", f"{plan.endpoint} refused the key (HTTP {status}); check {plan.key_env}")
    if status >= 400:
        return ProbeResult("fail", f"{plan.endpoint} answered HTTP {status}")
    detail = f"{plan.endpoint} answers"
    if plan.backend == "openai" and body:
        try:
            models = [m.get("id") for m in json.loads(body).get("data", []) if isinstance(m, dict)]
        except (ValueError, AttributeError):
            models = []
        if plan.model and models and plan.model not in models:
            return ProbeResult("warn", f"{detail}, but it does not list model {plan.model!r} "
                                       f"(it has: {', '.join(map(str, models[:5]))})")
        if models:
            detail += f" ({len(models)} model{'s' if len(models) != 1 else ''})"
    return ProbeResult("ok", detail)
