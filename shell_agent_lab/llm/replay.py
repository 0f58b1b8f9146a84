"""Record real model exchanges to a JSON cassette and replay them offline.

Modes (argument ``mode``, else ``$SHELL_AGENT_LAB_REPLAY``, else ``replay``):

* ``replay`` — answer only from the cassette; a request it has not seen fails loudly
  (:class:`ReplayMissError` names the cassette and the request's last user message);
* ``record`` — send every request to the real backend and rewrite the cassette from scratch;
* ``record-missing`` — replay what is known, record what is not.

Requests are keyed by a hash of their normalised form: roles, text, tool calls and results,
the tool list; tool-call ids renumbered in order of appearance (so ids a provider made up
do not break a replay), images reduced to their sha256, secrets scrubbed. The same request
seen several times replays its recordings in order (the last one repeats). Streamed
answers keep their chunks. See ``docs/recording.md``.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, Literal, Mapping, Sequence, Union

from .errors import ConfigurationError
from .types import (Backend, Capabilities, ChatOptions, Message, Response, ToolCall, ToolSpec,
                    Usage, system_prompt_of)

__all__ = ["ReplayBackend", "ReplayMissError", "ENV_REPLAY_MODE", "normalize_request", "memory_in_prompt",
           "request_key", "scrub_secrets"]

ENV_REPLAY_MODE = "SHELL_AGENT_LAB_REPLAY"
#: "full" (default) or "conversation" (ignore the system prompt and the tool list in keys)
ENV_REPLAY_MATCH = "SHELL_AGENT_LAB_REPLAY_MATCH"
Mode = Literal["replay", "record", "record-missing"]
_MODES = ("replay", "record", "record-missing")
_VERSION = 1

_SECRET_PATTERNS = [
    re.compile(r"\bsk-[A-Za-z0-9_\-]{16,}"),
    re.compile(r"\bAIza[0-9A-Za-z_\-]{30,}"),
    re.compile(r"\bya29\.[0-9A-Za-z_\-.]+"),
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._\-]{8,}"),
    re.compile(r"(?i)((?:api[_-]?key|access[_-]?token|secret|password)[\"']?\s*[:=]\s*[\"']?)[^\s\"',;]{4,}"),
]
_SECRET_ENV = re.compile(r"(?i)(KEY|TOKEN|SECRET|PASSWORD)")
REDACTED = "[REDACTED]"


class ReplayMissError(ConfigurationError):
    """The cassette has no answer for a request (replay mode)."""


def scrub_secrets(text: str, env: Mapping[str, str] | None = None) -> str:
    """Replace API keys, bearer tokens and the values of secret-looking env vars."""
    env = os.environ if env is None else env
    for name, value in env.items():
        if value and len(value) >= 8 and _SECRET_ENV.search(name) and value in text:
            text = text.replace(value, REDACTED)
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(lambda m: (m.group(1) if m.lastindex else "") + REDACTED, text)
    return text


#: text that differs between runs of the same conversation (clock, random nonces, ids made
#: from dates, temporary and machine-specific paths): masked in the request key only
_VOLATILE = [
    (re.compile(r"\[Time: [^\]\n]*\]"), "[Time: *]"),
    (re.compile(r"\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}(?::\d{2})? UTC\]"), "[TIME]"),
    (re.compile(r"\b([a-z][a-z_]*)_[0-9a-f]{32}\b"), r"\1_NONCE"),
    (re.compile(r"\b[0-9a-f]{32}\b"), "OBJECT_ID"),
    (re.compile(r"\(learned \d{4}-\d{2}-\d{2}\)"), "(learned DATE)"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2} \((?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\)"), "DATE"),
    (re.compile(r"\bf-\d{8}-\d{3,}\b"), "f-ID"),
    (re.compile(r"\bsess-\d+-[0-9a-f]+\b"), "sess-ID"),
    (re.compile(r"/tmp/tmp[A-Za-z0-9_]+"), "/tmp/TMP"),
]


def mask_volatile(text: str, env: Mapping[str, str] | None = None) -> str:
    """``text`` with run-specific parts replaced by placeholders (see ``_VOLATILE``)."""
    env = os.environ if env is None else env
    for value, name in ((env.get("SHELL_AGENT_LAB_DATA_DIR", ""), "$DATA_DIR"), (os.getcwd(), "$CWD")):
        if len(value) > 1:
            text = text.replace(value, name)
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text


def _matches_conversation(env: Mapping[str, str]) -> bool:
    return env.get(ENV_REPLAY_MATCH, "full") == "conversation"


def normalize_request(messages: Sequence[Message], tools: Sequence[ToolSpec],
                      env: Mapping[str, str] | None = None, *,
                      response_format: Mapping[str, Any] | None = None,
                      tool_choice: str | None = None) -> dict[str, Any]:
    """A stable, secret-free description of a request (the cassette's ``request``).

    A requested response schema is part of it (like the tool list), so requests without one keep
    the keys they always had; matching on the conversation leaves it out (like the tool list).
    """
    ids: dict[str, str] = {}

    def norm_id(value: str | None) -> str | None:
        if not value:
            return value
        if value not in ids:
            ids[value] = f"call_{len(ids) + 1}"
        return ids[value]

    def scrub_value(value: Any) -> Any:
        return _scrub_value(value, env)

    env_map = os.environ if env is None else env
    # "conversation": key on the messages only, so prompt wording and tool-list changes elsewhere
    # do not invalidate recorded example notebooks (their outputs are still compared by nbval)
    conversation_only = _matches_conversation(env_map)
    out = []
    for m in messages:
        content = "(system prompt)" if conversation_only and m.role == "system" else m.content
        entry: dict[str, Any] = {"role": m.role, "content": mask_volatile(scrub_secrets(content, env), env)}
        if m.tool_calls:
            entry["tool_calls"] = [{"id": norm_id(c.id), "name": c.name, "arguments": scrub_value(c.arguments)}
                                   for c in m.tool_calls]
        if m.tool_call_id:
            entry["tool_call_id"] = norm_id(m.tool_call_id)
        if m.name:
            entry["name"] = m.name
        if m.images:
            entry["images"] = [f"{mime}:{hashlib.sha256(data).hexdigest()}" for mime, data in m.images]
        out.append(entry)
    normalized: dict[str, Any] = {
        "messages": out,
        "tools": [] if conversation_only else
        [{"name": t.name, "description": t.description, "parameters": t.parameters} for t in tools]}
    if response_format and not conversation_only:
        normalized["response_format"] = dict(response_format)
    if tool_choice:
        normalized["tool_choice"] = tool_choice
    return normalized


def memory_in_prompt(messages: Sequence[Message], env: Mapping[str, str] | None = None, *,
                     headers: Sequence[str] = ()) -> str:
    """The memory part of the system prompt (from the first of the sections named by
    ``headers`` on, masked like the key), or "" when it has none.

    Matching on the conversation ignores the system prompt so that rewording the base prompt
    does not invalidate every recording; this part is still pinned: a replayed answer that was
    recorded with other memory in the prompt (a preference that no longer reaches the model, a
    fact that leaks into a private session) fails the replay. The headers come from whoever
    builds the backend (the agent's factory passes the context's memory section headers).
    """
    system = system_prompt_of(messages)
    starts = [i for i in (system.find(f"\n{h}\n") for h in headers) if i >= 0]
    if not starts:
        return ""
    return mask_volatile(scrub_secrets(system[min(starts) + 1:], env), env).strip()


def _scrub_value(value: Any, env: Mapping[str, str] | None) -> Any:
    if isinstance(value, str):
        return scrub_secrets(value, env)
    if isinstance(value, dict):
        return {k: _scrub_value(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub_value(v, env) for v in value]
    return value


def request_key(normalized: Mapping[str, Any]) -> str:
    blob = json.dumps(normalized, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _response_to_json(response: Response, env: Mapping[str, str] | None) -> dict[str, Any]:
    return {"text": scrub_secrets(response.text, env),
            "tool_calls": [{"id": c.id, "name": c.name, "arguments": _scrub_value(c.arguments, env),
                            "extra": c.extra}
                           for c in response.tool_calls],
            "usage": {"input_tokens": response.usage.input_tokens, "output_tokens": response.usage.output_tokens},
            "finish_reason": response.finish_reason, "model": _model_name(response.model),
            "extra": response.extra}


def _model_name(model: str | None) -> str | None:
    """A local server may report its model as a file path; a cassette keeps only the file's name."""
    if model and ("/" in model or "\\" in model):
        return model.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    return model


def _response_from_json(data: Mapping[str, Any]) -> Response:
    usage = data.get("usage") or {}
    return Response(text=data.get("text", ""),
                    tool_calls=[ToolCall(id=c["id"], name=c["name"], arguments=dict(c.get("arguments") or {}),
                                         extra=dict(c.get("extra") or {})) for c in data.get("tool_calls") or []],
                    usage=Usage(int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))),
                    finish_reason=data.get("finish_reason"), model=data.get("model"),
                    extra=dict(data.get("extra") or {}))


InnerFactory = Callable[[], Backend]


class ReplayBackend(Backend):
    """Wraps a real backend (``inner``, or a factory that builds it on first need)."""

    name = "replay"

    def __init__(self, cassette: str | os.PathLike[str], inner: Union[Backend, InnerFactory, None] = None, *,
                 mode: Mode | None = None, env: Mapping[str, str] | None = None,
                 pinned_sections: Sequence[str] = ()) -> None:
        """``pinned_sections``: headers of the system prompt's sections a conversation-matched
        replay still pins (see :func:`memory_in_prompt`); none by default."""
        self._env = os.environ if env is None else env
        self._pinned = tuple(pinned_sections)
        chosen = mode or self._env.get(ENV_REPLAY_MODE) or "replay"
        if chosen not in _MODES:
            raise ConfigurationError(f"unknown replay mode {chosen!r}",
                                     hint=f"Set {ENV_REPLAY_MODE} to one of: {', '.join(_MODES)}")
        self.mode: Mode = chosen  # type: ignore[assignment]
        self.path = Path(cassette)
        self._inner_or_factory = inner
        self._inner: Backend | None = inner if isinstance(inner, Backend) else None
        self._lock = threading.Lock()
        self._served: dict[str, int] = {}
        self._interactions: list[dict[str, Any]] = [] if self.mode == "record" else self._load()
        self.model = self.path.stem
        self.capabilities = (self._inner.capabilities if self._inner is not None
                             else Capabilities(streaming=True, native_tools=True, images=True))
        if self.mode != "replay" and inner is None:
            raise ConfigurationError(f"replay mode {self.mode!r} needs a real backend to record from",
                                     hint="Configure a profile with a real backend as the replay's source")

    # -- Backend ----------------------------------------------------------------------------
    def chat(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), *,
             options: ChatOptions | None = None) -> Response:
        return self._exchange(messages, tools, options, on_text=None)

    def stream(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), *,
               on_text: Callable[[str], None], options: ChatOptions | None = None) -> Response:
        return self._exchange(messages, tools, options, on_text=on_text)

    def close(self) -> None:
        if self._inner is not None:
            self._inner.close()

    @property
    def interactions(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._interactions)

    # -- internals --------------------------------------------------------------------------
    def _exchange(self, messages: Sequence[Message], tools: Sequence[ToolSpec], options: ChatOptions | None,
                  on_text: Callable[[str], None] | None) -> Response:
        normalized = normalize_request(messages, tools, self._env,
                                       response_format=options.response_format if options else None,
                                       tool_choice=options.tool_choice if options else None)
        key = request_key(normalized)
        if self.mode != "record":
            found = self._lookup(key)
            if found is not None and self._pinned and "memory" in found:
                now = memory_in_prompt(messages, self._env, headers=self._pinned)
                if now != found["memory"]:
                    raise ReplayMissError(
                        f"cassette {self.path} recorded this answer with other memory in the system "
                        f"prompt (recorded: {found['memory'][:160]!r}; now: {now[:160]!r})",
                        hint="Memory no longer reaches the model as recorded: fix that, or re-record "
                             "(see docs/recording.md)")
            if found is not None:
                response = _response_from_json(found["response"])
                if on_text is not None:
                    for chunk in found.get("chunks") or ([response.text] if response.text else []):
                        on_text(chunk)
                return response
            if self.mode == "replay":
                last = next((m["content"] for m in reversed(normalized["messages"]) if m["role"] == "user"), "")
                raise ReplayMissError(
                    f"cassette {self.path} has no recorded answer for this request "
                    f"(last user message: {last[:200]!r}){self._nearest(normalized)}",
                    hint=f"Re-record it: {ENV_REPLAY_MODE}=record-missing with a real model configured "
                         "(see docs/recording.md)")
        inner = self._real()
        chunks: list[str] | None = None
        if on_text is None:
            response = inner.chat(messages, tools, options=options)
        else:
            chunks = []

            def collect(piece: str) -> None:
                chunks.append(scrub_secrets(piece, self._env))
                on_text(piece)

            response = inner.stream(messages, tools, on_text=collect, options=options)
        memory = memory_in_prompt(messages, self._env, headers=self._pinned) if _matches_conversation(self._env) else None
        self._record(key, normalized, response, chunks, memory)
        return response

    def _nearest(self, normalized: Mapping[str, Any]) -> str:
        """Where the request first differs from the recorded one that shares most of its text (to
        tell a changed prompt from a new question), or "" when nothing is close."""
        asked = json.dumps(normalized.get("messages"), ensure_ascii=False, sort_keys=True)
        best, at = None, -1
        with self._lock:
            recorded = [json.dumps(i["request"].get("messages"), ensure_ascii=False, sort_keys=True)
                        for i in self._interactions]
        for text in recorded:
            n = 0
            limit = min(len(text), len(asked))
            while n < limit and text[n] == asked[n]:
                n += 1
            if n > at:
                best, at = text, n
        if best is None or at < 40:
            return ""
        return (f"; the closest recording differs at character {at}: recorded {best[max(0, at - 40):at + 80]!r}, "
                f"asked {asked[max(0, at - 40):at + 80]!r}")

    def _real(self) -> Backend:
        if self._inner is None:
            factory = self._inner_or_factory
            assert callable(factory)
            self._inner = factory()  # type: ignore[misc]
        return self._inner

    def _lookup(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            matches = [i for i in self._interactions if i["key"] == key]
            if not matches:
                return None
            index = self._served.get(key, 0)
            self._served[key] = index + 1
            return matches[min(index, len(matches) - 1)]

    def _record(self, key: str, normalized: dict[str, Any], response: Response, chunks: list[str] | None,
                memory: str | None = None) -> None:
        entry: dict[str, Any] = {"key": key, "request": normalized,
                                 "response": _response_to_json(response, self._env)}
        if memory is not None:
            entry["memory"] = memory
        if chunks is not None:
            entry["chunks"] = chunks
        with self._lock:
            self._interactions.append(entry)
            self._served[key] = sum(1 for i in self._interactions if i["key"] == key)
            self._save()

    def _load(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            if self.mode == "replay":
                raise ConfigurationError(f"cassette {self.path} does not exist",
                                         hint=f"Record it first: {ENV_REPLAY_MODE}=record (see docs/recording.md)")
            return []
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("version") != _VERSION or not isinstance(data.get("interactions"), list):
                raise ValueError(f"expected version {_VERSION} with a list of interactions")
            return list(data["interactions"])
        except (ValueError, AttributeError) as exc:
            raise ConfigurationError(f"cassette {self.path} is not readable: {exc}",
                                     hint=f"Re-record it with {ENV_REPLAY_MODE}=record") from exc

    def _save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = json.dumps({"version": _VERSION, "interactions": self._interactions},
                             indent=1, ensure_ascii=False, sort_keys=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(payload + "\n")
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
