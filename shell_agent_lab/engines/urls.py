"""Connection URLs: which engine, where, and the secret kept apart from everything shown.

Accepted: ``postgresql://`` (or ``postgres://``) and Spark Connect's ``sc://``. The secret may
be in the URL itself (``postgresql://user:PASSWORD@host/db``, ``sc://host:15002/;token=T``),
in an environment variable named in the URL (``${PG_PASSWORD}``), in
``SHELL_AGENT_LAB_SECRET_<NAME>``, or (PostgreSQL) where libpq looks: ``PGPASSWORD``,
``PGPASSFILE`` or ``~/.pgpass``. Only :attr:`ConnectionSpec.redacted` is ever shown, logged or
written; :attr:`ConnectionSpec.secret_url` lives in memory for the driver only.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from .base import EngineError

__all__ = ["ConnectionSpec", "parse_url", "redact", "check_name", "SECRET_ENV_PREFIX"]

SECRET_ENV_PREFIX = "SHELL_AGENT_LAB_SECRET_"
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,30}$")
#: names a qualified table could mean locally (DuckDB catalogs and schemas)
_RESERVED = frozenset({"main", "temp", "system", "memory", "information_schema", "pg_catalog", "local"})
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_SC_SECRET = re.compile(r"(;\s*token\s*=)[^;]*", re.IGNORECASE)


@dataclass(frozen=True)
class ConnectionSpec:
    name: str
    kind: str                      # "postgresql" | "spark"
    redacted: str                  # the URL with any secret replaced by ***
    secret_url: str = field(repr=False, compare=False)
    host: str = ""

    def __repr__(self) -> str:     # never the secret
        return f"ConnectionSpec(name={self.name!r}, kind={self.kind!r}, url={self.redacted!r})"

    def scrub(self, text: str) -> str:
        """``text`` (a driver's message, say) with this connection's secret and any URL's redacted."""
        text = redact(text)
        for secret in _secrets(self.secret_url):
            if len(secret) >= 4:
                text = text.replace(secret, "***")
        return text


def _secrets(url: str) -> list[str]:
    found = [m.group(1) for m in re.finditer(r";\s*token\s*=([^;]*)", url, re.IGNORECASE)]
    try:
        password = urlsplit(url.split(";", 1)[0]).password
    except ValueError:
        password = None
    if password:
        found += [password, unquote(password)]
    return found


def check_name(name: object) -> str:
    if not isinstance(name, str) or not _NAME.match(name) or name in _RESERVED:
        raise EngineError(f"invalid connection name {name!r}: use lowercase letters, digits and '_', starting "
                          "with a letter (e.g. pg, warehouse, spark), and not main, temp, system or local.")
    return name


def _expand(url: str, env: dict[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in env:
            raise EngineError(f"the URL names ${{{key}}}, which is not set in the environment; set it and connect again.")
        return quote(env[key], safe="")
    return _ENV_REF.sub(value, url)


def redact(text: str) -> str:
    """``text`` with the password of any URL in it and any Spark token replaced by ``***``."""
    text = re.sub(r"(\b[a-z][a-z0-9+.-]*://[^/\s:@]*:)[^@\s/]*@", r"\1***@", text, flags=re.IGNORECASE)
    return _SC_SECRET.sub(r"\1***", text)


def parse_url(name: str, url: str, *, env: dict[str, str] | None = None) -> ConnectionSpec:
    """Check ``name`` and ``url``; resolve the secret. Raises :class:`EngineError` with one line."""
    name = check_name(name)
    if not isinstance(url, str) or not url.strip():
        raise EngineError("a connection needs a URL: postgresql://user@host:5432/db or sc://host:15002.")
    env = dict(os.environ) if env is None else env
    raw = url.strip()
    shown = redact(raw)
    expanded = _expand(raw, env)
    scheme = raw.split("://", 1)[0].lower() if "://" in raw else ""
    if scheme in ("postgresql", "postgres"):
        return _postgres(name, expanded, shown, env)
    if scheme == "sc":
        return _spark(name, expanded, shown, env)
    raise EngineError(f"unsupported URL {shown!r}: use postgresql://… (PostgreSQL) or sc://… (Spark Connect).")


def _postgres(name: str, url: str, shown: str, env: dict[str, str]) -> ConnectionSpec:
    parts = urlsplit(url)
    if not parts.hostname and "host=" not in parts.query:
        raise EngineError(f"{shown!r} names no host; e.g. postgresql://analyst@db.example.com:5432/sales.")
    secret = env.get(SECRET_ENV_PREFIX + name.upper())
    if secret and parts.password is None:
        user = quote(unquote(parts.username or ""), safe="")
        host = parts.hostname or ""
        netloc = f"{user}:{quote(secret, safe='')}@{host}" + (f":{parts.port}" if parts.port else "")
        url = urlunsplit(("postgresql", netloc, parts.path, parts.query, parts.fragment))
    return ConnectionSpec(name, "postgresql", shown, url, parts.hostname or "")


def _spark(name: str, url: str, shown: str, env: dict[str, str]) -> ConnectionSpec:
    parts = urlsplit(url.split(";", 1)[0])
    if not parts.hostname:
        raise EngineError(f"{shown!r} names no host; e.g. sc://cluster.example.com:15002.")
    secret = env.get(SECRET_ENV_PREFIX + name.upper())
    if secret and not _SC_SECRET.search(url):
        url = url.rstrip("/") + ("" if ";" in url else "/") + f";token={secret}"
    return ConnectionSpec(name, "spark", shown, url, parts.hostname or "")
