"""A kernel's named connections: specs (secrets in memory only), engines opened on first use,
each source's catalogue cached for a minute."""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from .base import Engine, EngineError, RemoteTable
from .urls import ConnectionSpec, parse_url

__all__ = ["Connections", "open_engine"]

log = logging.getLogger(__name__)

_CATALOG_TTL = 60.0
#: seconds a failed listing is remembered (a connection that hangs would slow every prompt)
_FAILURE_TTL = 15.0


def open_engine(spec: ConnectionSpec) -> Engine:
    if spec.kind == "postgresql":
        from .postgres import PostgresEngine
        return PostgresEngine(spec)
    from .spark import SparkEngine
    return SparkEngine(spec)


class Connections:
    def __init__(self, *, env: Mapping[str, str] | None = None,
                 opener: Callable[[ConnectionSpec], Engine] = open_engine,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._env = dict(env) if env is not None else None
        self._opener = opener
        self._clock = clock
        self._lock = threading.Lock()
        self._specs: dict[str, ConnectionSpec] = {}
        self._engines: dict[str, Engine] = {}
        self._catalogs: dict[str, tuple[float, list[RemoteTable]]] = {}
        self._failures: dict[str, tuple[float, EngineError]] = {}

    def __bool__(self) -> bool:
        with self._lock:
            return bool(self._specs)

    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._specs)

    def specs(self) -> list[ConnectionSpec]:
        with self._lock:
            return [self._specs[n] for n in sorted(self._specs)]

    def add(self, name: str, url: str) -> ConnectionSpec:
        """Add (or replace) ``name``; the URL is checked, the server is not contacted yet."""
        spec = parse_url(name, url, env=self._env)
        with self._lock:
            old = self._engines.pop(spec.name, None)
            self._specs[spec.name] = spec
            self._catalogs.pop(spec.name, None)
            self._failures.pop(spec.name, None)
        _close(old)
        log.info("connection %s added: %s", spec.name, spec.redacted)
        return spec

    def remove(self, name: str) -> bool:
        with self._lock:
            spec = self._specs.pop(name, None)
            engine = self._engines.pop(name, None)
            self._catalogs.pop(name, None)
            self._failures.pop(name, None)
        _close(engine)
        return spec is not None

    def spec(self, name: str) -> ConnectionSpec:
        with self._lock:
            spec = self._specs.get(name)
        if spec is None:
            raise EngineError(f"no connection named {name!r}; /connect lists them.")
        return spec

    def engine(self, name: str) -> Engine:
        spec = self.spec(name)
        with self._lock:
            engine = self._engines.get(name)
            if engine is None:
                engine = self._engines[name] = self._opener(spec)
            return engine

    def catalog(self, name: str, *, refresh: bool = False) -> list[RemoteTable]:
        """The tables of ``name`` (cached for a minute; ``refresh`` reads them again)."""
        with self._lock:
            cached = self._catalogs.get(name)
            failed = self._failures.get(name)
        if not refresh and failed is not None and self._clock() - failed[0] < _FAILURE_TTL:
            raise failed[1]       # a server that is down is not asked again on every listing
        if cached is not None and not refresh and self._clock() - cached[0] < _CATALOG_TTL:
            return cached[1]
        try:
            tables = self.engine(name).list_tables()
        except EngineError as exc:
            with self._lock:
                self._failures[name] = (self._clock(), exc)
            raise
        with self._lock:
            self._failures.pop(name, None)
            if name in self._specs:
                self._catalogs[name] = (self._clock(), tables)
        return tables

    def cancel_all(self) -> None:
        with self._lock:
            engines = list(self._engines.values())
        for engine in engines:
            try:
                engine.cancel()
            except Exception:  # pragma: no cover
                log.debug("cancel failed", exc_info=True)

    def close(self) -> None:
        with self._lock:
            engines = list(self._engines.values())
            self._engines.clear()
            self._specs.clear()
            self._catalogs.clear()
            self._failures.clear()
        for engine in engines:
            _close(engine)


def _close(engine: Any) -> None:
    if engine is None:
        return
    try:
        engine.close()
    except Exception:  # pragma: no cover
        log.debug("closing an engine failed", exc_info=True)
