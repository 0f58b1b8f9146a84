"""Choosing and building the backend for a session.

:func:`resolve_profile` is pure given its inputs (the profiles, the environment, a port
probe and an "is the embedded model installed" check); :func:`build_backend` turns a
:class:`~.profiles.Profile` into a backend; :func:`select_backend` does both.

With no profile chosen the order is: ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` → OpenAI
(-compatible); ``GEMINI_API_KEY`` / ``GOOGLE_API_KEY`` → Gemini (Vertex AI when
``GOOGLE_GENAI_USE_VERTEXAI`` is true; the project comes from ``GOOGLE_CLOUD_PROJECT``); a server answering on
LM Studio's 127.0.0.1:1234 or Ollama's 127.0.0.1:11434; the embedded model when the
``local`` extra is installed; otherwise a :class:`ConfigurationError` saying how to set one up.

Every built backend carries its effective defaults as attributes the agent reads:
``auto_extract_default``, ``auto_title_default``, ``context_tokens``, ``output_reserve`` and
``profile`` (the :class:`Profile` it came from).
"""
from __future__ import annotations

import dataclasses

import os
import socket
from typing import Any, Callable, Iterable, Mapping, Sequence

from .errors import ConfigurationError
from .profiles import Profile
from .types import Backend

__all__ = ["select_backend", "resolve_profile", "build_backend", "port_open", "SETUP_HINT"]

LM_STUDIO = ("127.0.0.1", 1234)
OLLAMA = ("127.0.0.1", 11434)
SETUP_HINT = ("Set OPENAI_API_KEY (or OPENAI_BASE_URL for a server of your own) or GEMINI_API_KEY; "
              "or start LM Studio (127.0.0.1:1234) or Ollama (127.0.0.1:11434); "
              "or pip install 'shell-agent-lab[local]' for the embedded model; "
              "or configure ShellAgent.profiles")

Probe = Callable[[str, int], bool]


def port_open(host: str, port: int, timeout: float = 0.3) -> bool:
    """True when something accepts TCP connections on ``host:port`` (quick)."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def _installed() -> bool:
    from .local import local_model_available

    return local_model_available()


def _profiles_of(source: Any) -> tuple[dict[str, Profile], str | None, str | None]:
    """(profiles by name, default name, model override) from settings, a mapping or a list."""
    if source is None:
        return {}, None, None
    default = model = None
    if hasattr(source, "profiles") and not isinstance(source, Mapping):
        default = getattr(source, "profile", None) or None
        model = getattr(source, "model", None) or None
        source = source.profiles or {}
    out: dict[str, Profile] = {}
    items: Iterable[tuple[str, Any]]
    if isinstance(source, Mapping):
        items = source.items()
    else:
        items = ((p.name, p) for p in source)
    for name, body in items:
        out[name] = body if isinstance(body, Profile) else Profile.from_dict(name, body)
    return out, default, model


def _env_truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def resolve_profile(profiles: Any = None, name: str | None = None, *,
                    env: Mapping[str, str] | None = None, probe: Probe | None = None,
                    local_available: Callable[[], bool] | None = None) -> Profile:
    """The profile to use: the named one, else the configured default, else auto-detection."""
    env = os.environ if env is None else env
    known, default, model = _profiles_of(profiles)
    chosen = name or default
    if chosen:
        if chosen not in known:
            listed = ", ".join(sorted(known)) or "none configured"
            raise ConfigurationError(f"unknown profile {chosen!r} (known: {listed})",
                                     hint="Add it to ShellAgent.profiles or pick a listed one")
        return known[chosen].with_model(model)
    return _auto_profile(env, probe or port_open, local_available or _installed).with_model(model)


def _auto_profile(env: Mapping[str, str], probe: Probe, local_available: Callable[[], bool]) -> Profile:
    if env.get("OPENAI_API_KEY") or env.get("OPENAI_BASE_URL"):
        return Profile("auto", "openai", model=env.get("OPENAI_MODEL", ""),
                       endpoint=env.get("OPENAI_BASE_URL", ""))
    if _env_truthy(env.get("GOOGLE_GENAI_USE_VERTEXAI")):
        return Profile("auto", "vertex", options={"project": env.get("GOOGLE_CLOUD_PROJECT") or None,
                                                  "location": env.get("GOOGLE_CLOUD_LOCATION") or None})
    if env.get("GEMINI_API_KEY") or env.get("GOOGLE_API_KEY"):
        return Profile("auto", "gemini")
    for host, port in (LM_STUDIO, OLLAMA):
        if probe(host, port):
            return Profile("auto", "openai", model=env.get("OPENAI_MODEL", ""),
                           endpoint=f"http://{host}:{port}/v1")
    if local_available():
        return Profile("auto", "local")
    raise ConfigurationError("no model is configured and none was found", hint=SETUP_HINT)


def build_backend(profile: Profile, *, env: Mapping[str, str] | None = None,
                  profiles: Mapping[str, Profile] | None = None, pinned_sections: Sequence[str] = ()) -> Backend:
    """Construct the backend ``profile`` describes (nothing is contacted yet).

    ``pinned_sections``: for a replay, the system prompt's section headers it pins
    (:class:`~.replay.ReplayBackend`)."""
    env = os.environ if env is None else env
    opts = dict(profile.options)
    settings = profile.defaults
    kind = profile.backend
    backend: Backend
    if kind == "openai":
        from .openai_backend import OpenAIBackend

        backend = OpenAIBackend(model=profile.model or None, base_url=profile.endpoint or None,
                                api_key_env=profile.api_key_env or None, timeout=settings.timeout,
                                fold_tool_results=bool(opts.get("fold_tool_results", False)),
                                split_images=bool(opts.get("split_images", profile.is_local)),
                                lenient_tools=bool(opts.get("lenient_tools", True)),
                                extra_body=opts.get("extra_body"), env=env)
    elif kind in ("gemini", "vertex"):
        from .gemini_backend import GeminiBackend

        backend = GeminiBackend(model=profile.model or None, api_key_env=profile.api_key_env or None,
                                vertex=kind == "vertex", project=opts.get("project"),
                                location=opts.get("location"), base_url=profile.endpoint or None,
                                timeout=settings.timeout, env=env)
    elif kind == "local":
        from .local import LocalBackend

        backend = LocalBackend(opts.get("model_path"), n_ctx=int(opts.get("n_ctx") or settings.max_context_tokens),
                               n_threads=opts.get("n_threads"), timeout=settings.timeout,
                               fold_tool_results=bool(opts.get("fold_tool_results", False)),
                               temperature=_optional_float(opts.get("temperature", 0.0), "temperature"))
    elif kind == "scripted":
        from .scripted import ScriptedBackend

        backend = ScriptedBackend(list(opts.get("responses") or []), model=profile.model or "scripted")
    else:
        backend, source_profile = _build_replay(profile, opts, env, profiles or {}, pinned_sections)
        if source_profile is not None:
            # a replay stands in for the model it records: the same defaults (context budget,
            # extraction, schema in the prompt), so a recording shows what that model really does
            profile, settings = source_profile, source_profile.defaults
            if source_profile.backend == "local":     # what the embedded model honours, replayed too
                backend.capabilities = dataclasses.replace(backend.capabilities, images=False,
                                                           tool_choice=False)
    backend.auto_extract_default = settings.auto_extract  # type: ignore[attr-defined]
    backend.auto_title_default = settings.auto_title  # type: ignore[attr-defined]
    backend.context_tokens = settings.max_context_tokens  # type: ignore[attr-defined]
    backend.output_reserve = settings.output_reserve  # type: ignore[attr-defined]
    backend.profile = profile  # type: ignore[attr-defined]
    return backend


def _build_replay(profile: Profile, opts: dict[str, Any], env: Mapping[str, str],
                  profiles: Mapping[str, Profile], pinned_sections: Sequence[str] = ()) -> tuple[Backend, Profile | None]:
    from .replay import ReplayBackend

    cassette = opts.get("cassette")
    if not cassette:
        raise ConfigurationError(f"profile {profile.name!r}: a replay profile needs options.cassette",
                                 hint='e.g. {"backend": "replay", "options": {"cassette": "demo.json", '
                                      '"source": "work"}}')
    source = opts.get("source")
    inner = None
    source_profile: Profile | None = None
    if source:
        if isinstance(source, Mapping):
            source_profile = Profile.from_dict(f"{profile.name}.source", source)
        elif source in profiles:
            source_profile = profiles[source]
        else:
            raise ConfigurationError(f"profile {profile.name!r}: source profile {source!r} is not configured",
                                     hint="Name another profile in ShellAgent.profiles as the source")
        if source_profile.backend == "replay":
            raise ConfigurationError(f"profile {profile.name!r}: a replay cannot record from another replay")

        def inner() -> Backend:
            return build_backend(source_profile, env=env, profiles=profiles)
    backend = ReplayBackend(os.path.expanduser(str(cassette)), inner, mode=opts.get("mode"), env=env,
                            pinned_sections=pinned_sections)
    return backend, source_profile


def select_backend(profiles: Any = None, name: str | None = None, *, env: Mapping[str, str] | None = None,
                   probe: Probe | None = None, local_available: Callable[[], bool] | None = None,
                   pinned_sections: Sequence[str] = ()) -> Backend:
    """Resolve the profile (see :func:`resolve_profile`) and build its backend.

    ``profiles`` may be the ``ShellAgent`` settings (its ``profiles``, ``profile`` and ``model``
    are used), a mapping of name → profile dict, or a list of :class:`Profile`.
    """
    env = os.environ if env is None else env
    profile = resolve_profile(profiles, name, env=env, probe=probe, local_available=local_available)
    known, _, _ = _profiles_of(profiles)
    return build_backend(profile, env=env, profiles=known, pinned_sections=pinned_sections)


def _optional_float(value: Any, name: str) -> float | None:
    if value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ConfigurationError(f"profile option {name} must be a number, not {value!r}",
                                 hint="e.g. \"temperature\": 0.2, or null for the server's default") from None
