"""Named model profiles and the per-backend defaults that come with them (pure).

A profile is what ``ShellAgent.profiles`` holds under a name::

    {"backend": "openai", "model": "gpt-4o-mini", "endpoint": "https://…/v1",
     "api_key_env": "WORK_OPENAI_KEY", "options": {"fold_tool_results": true}}

Backends: ``openai`` (any OpenAI-compatible server; ``lmstudio`` / ``ollama`` / ``vllm`` /
``llamacpp`` are accepted as aliases, with the usual local endpoints), ``gemini``, ``vertex``,
``local`` (the embedded model), ``scripted`` and ``replay``. Keys a profile may carry at the top
level besides those (``project``, ``location``, ``auto_extract``, ``auto_title``,
``max_context_tokens``, ``output_reserve``, ``timeout``, ``base_url``, ``data_sharing``,
``treat_as_remote``) are folded into
``options``.

Defaults follow the reference app: the embedded model and local servers keep background work
off (memory extraction and auto titles would evict llama.cpp's single prompt cache) and use a
16 384-token context; remote models turn both on and get far bigger budgets.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Mapping
from urllib.parse import urlparse

from .errors import ConfigurationError

__all__ = ["Profile", "BackendDefaults", "BACKENDS", "defaults_for"]

BACKENDS = ("openai", "gemini", "vertex", "local", "scripted", "replay")
_ALIASES = {
    "openai-compatible": ("openai", ""), "openai_compatible": ("openai", ""),
    "lmstudio": ("openai", "http://127.0.0.1:1234/v1"), "lm-studio": ("openai", "http://127.0.0.1:1234/v1"),
    "ollama": ("openai", "http://127.0.0.1:11434/v1"), "vllm": ("openai", ""),
    "llamacpp": ("openai", ""), "llama.cpp": ("openai", ""), "embedded": ("local", ""),
}
_FOLDED = ("project", "location", "auto_extract", "auto_title", "max_context_tokens", "output_reserve",
           "timeout", "max_warm_tokens", "max_tool_result_tokens", "data_sharing", "treat_as_remote")
_LOOPBACK = {"127.0.0.1", "localhost", "::1", "0.0.0.0"}


@dataclass(frozen=True)
class BackendDefaults:
    auto_extract: bool
    auto_title: bool
    max_context_tokens: int          # 0 = no limit
    max_warm_tokens: int
    max_tool_result_tokens: int
    output_reserve: int
    timeout: float                   # seconds per attempt


# the embedded model: 8,192 tokens of context hold the longest prompt measured (about 3,100) with its
# reply; twice that cost ~235 MB more of KV cache on the shared server for nothing
_LOCAL = BackendDefaults(False, False, 8192, 1024, 2048, 1024, 300.0)
_GEMINI = BackendDefaults(True, True, 524288, 16384, 32768, 4096, 180.0)
_OPENAI = BackendDefaults(True, True, 128000, 16384, 32768, 4096, 180.0)
_TEST = BackendDefaults(False, False, 0, 1024, 2048, 0, 60.0)


def _loopback(url: str) -> bool:
    return bool(url) and (urlparse(url).hostname or "") in _LOOPBACK


def defaults_for(backend: str, endpoint: str = "") -> BackendDefaults:
    """Defaults for a backend kind; an OpenAI-compatible server on this machine counts as local."""
    if backend == "local" or (backend == "openai" and _loopback(endpoint)):
        return _LOCAL
    if backend in ("gemini", "vertex"):
        return _GEMINI
    if backend == "openai":
        return _OPENAI
    return _TEST


@dataclass(frozen=True)
class Profile:
    name: str
    backend: str
    model: str = ""
    endpoint: str = ""
    api_key_env: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise ConfigurationError(f"profile {self.name!r}: unknown backend {self.backend!r}",
                                     hint=f"Use one of: {', '.join(BACKENDS)}")
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))

    @classmethod
    def from_dict(cls, name: str, body: Mapping[str, Any]) -> "Profile":
        """Build from a ``ShellAgent.profiles`` entry; bad entries raise a one-line error."""
        if not isinstance(body, Mapping):
            raise ConfigurationError(f"profile {name!r} must be a dict",
                                     hint='e.g. {"backend": "openai", "model": "gpt-4o-mini"}')
        raw_kind = str(body.get("backend") or "openai").strip().lower()
        kind, default_endpoint = _ALIASES.get(raw_kind, (raw_kind, ""))
        if not isinstance(body.get("options") or {}, Mapping):
            raise ConfigurationError(f"profile {name!r}: options must be a dict")
        options = dict(body.get("options") or {})
        for key in _FOLDED:
            if key in body and body[key] is not None:
                options.setdefault(key, body[key])
        endpoint = str(body.get("endpoint") or body.get("base_url") or default_endpoint or "")
        return cls(name=name, backend=kind, model=str(body.get("model") or ""), endpoint=endpoint,
                   api_key_env=str(body.get("api_key_env") or ""), options=options)

    def with_model(self, model: str | None) -> "Profile":
        return replace(self, model=model) if model else self

    @property
    def is_local(self) -> bool:
        return self.backend == "local" or (self.backend == "openai" and _loopback(self.endpoint))

    @property
    def defaults(self) -> BackendDefaults:
        """The backend's defaults with this profile's overrides applied."""
        base = defaults_for(self.backend, self.endpoint)
        overrides: dict[str, Any] = {}
        for key, kind in (("auto_extract", bool), ("auto_title", bool), ("max_context_tokens", int),
                          ("max_warm_tokens", int), ("max_tool_result_tokens", int),
                          ("output_reserve", int), ("timeout", float)):
            value = self.options.get(key)
            if value is None:
                continue
            if kind is bool and not isinstance(value, bool):
                raise ConfigurationError(f"profile {self.name!r}: {key} must be true or false, got {value!r}")
            if kind is not bool:
                try:
                    value = kind(value)
                except (TypeError, ValueError):
                    raise ConfigurationError(f"profile {self.name!r}: {key} must be a number, got {value!r}") from None
                if value < 0:
                    raise ConfigurationError(f"profile {self.name!r}: {key} must not be negative")
            overrides[key] = value
        return replace(base, **overrides)
