"""What leaves the machine: the data-sharing level and the model's view of a tool result (pure).

Three levels (``ShellAgent.data_sharing`` or a profile's ``data_sharing`` key):

* ``"rows"`` — the model reads results as the tools write them;
* ``"aggregates"`` — the model reads names, types and aggregate results (counts, sums, means,
  quantiles, test statistics, group-by results over at most :data:`AGGREGATE_MAX_ROWS` rows);
  a result made of individual records reaches it as its shape and column names only, and
  sample values are withheld;
* ``"schema"`` — the model reads table and column names and types only; every result stays in
  the notebook.

A level set explicitly always applies. Unset, the embedded model and servers on this machine
get ``"rows"`` (nothing leaves the machine) and a remote endpoint gets :data:`REMOTE_DEFAULT`.

A tool declares what its result holds in ``ToolResult.data["sharing"]`` (a :func:`label`); the
loop stores that label with the tool's record, and the context builder sends
:func:`model_view` of every tool record, never the record itself. A result without a label is
withheld below ``"rows"``: a new tool, a user tool or an MCP tool cannot forget the level.
"""
from __future__ import annotations

import ipaddress
import os
import re
from typing import Any, Iterable, Mapping
from urllib.parse import urlparse

__all__ = ["LEVELS", "REMOTE_DEFAULT", "AGGREGATE_MAX_ROWS", "TREAT_AS_REMOTE_ENV", "LEVEL_ENV", "effective_sharing",
           "leaves_machine", "destination", "label", "record_meta", "model_view", "scrub_error",
           "scrub_code", "check_level", "COMPUTED_ANSWER", "answer_view"]

LEVELS = ("rows", "aggregates", "schema")
#: the level a remote endpoint gets when none is set (see docs/security.md for why)
REMOTE_DEFAULT = "aggregates"
#: an aggregate result with more rows than this is treated as a listing of records
AGGREGATE_MAX_ROWS = 25
#: set to 1 to treat every backend as remote (tests and benchmarks measure the levels with it)
TREAT_AS_REMOTE_ENV = "SHELL_AGENT_LAB_TREAT_AS_REMOTE"
#: the level, when ``ShellAgent.data_sharing`` is unset (benchmarks set it for their kernels)
LEVEL_ENV = "SHELL_AGENT_LAB_DATA_SHARING"

_KINDS = ("aggregate", "records", "schema")
_NEVER_LEAVE = ("local", "scripted", "replay")
_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}


def check_level(value: Any, where: str = "data_sharing") -> str | None:
    """``value`` as a level (None stays None); anything else raises ``ValueError`` with the levels."""
    if value is None:
        return None
    text = str(value).strip().lower()
    if text not in LEVELS:
        raise ValueError(f"{where} must be one of {', '.join(LEVELS)}, got {value!r}")
    return text


def _profile_of(target: Any) -> Any:
    """A Profile (or dict) behind a backend, or ``target`` itself."""
    return getattr(target, "profile", None) if hasattr(target, "chat") else target


def _get(obj: Any, key: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


def _option(profile: Any, key: str) -> Any:
    value = _get(profile, key)
    if value is None:
        options = _get(profile, "options")
        if isinstance(options, Mapping):
            value = options.get(key)
    return value


def _loopback_url(url: str) -> bool:
    host = (urlparse(url).hostname or "").strip("[]").lower() if url else ""
    if not host:
        return False
    if host in _LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _kind_and_endpoint(target: Any) -> tuple[str, str]:
    profile = _profile_of(target)
    kind = str(_get(profile, "backend") or "") if profile is not None else ""
    endpoint = str(_get(profile, "endpoint") or _get(profile, "base_url") or "") if profile is not None else ""
    if hasattr(target, "chat"):
        kind = kind or str(getattr(target, "name", "") or "")
        endpoint = str(getattr(target, "base_url_configured", None) or getattr(target, "base_url", None)
                       or endpoint or "")
    return kind, endpoint


def leaves_machine(target: Any, env: Mapping[str, str] | None = None) -> bool:
    """Whether requests to ``target`` (a backend, a Profile or a profile dict) leave this machine.

    The embedded model, the scripted and replay doubles and OpenAI-compatible servers on a
    loopback address (127.0.0.0/8, ::1, localhost) do not; every other endpoint does. The
    environment's ``SHELL_AGENT_LAB_TREAT_AS_REMOTE=1`` or a profile's ``"treat_as_remote": true``
    (test and benchmark settings) make any backend count as remote."""
    env = os.environ if env is None else env
    if str(env.get(TREAT_AS_REMOTE_ENV, "")).strip() in ("1", "true", "yes"):
        return True
    profile = _profile_of(target)
    if profile is not None and _option(profile, "treat_as_remote") is True:
        return True
    kind, endpoint = _kind_and_endpoint(target)
    if kind in _NEVER_LEAVE or not kind:
        return False
    if kind == "openai":
        return not _loopback_url(endpoint) if endpoint else True
    return True


def destination(target: Any) -> str:
    """Where requests go, for notices: the endpoint's host, or the provider's name."""
    kind, endpoint = _kind_and_endpoint(target)
    host = urlparse(endpoint).hostname if endpoint else None
    if host:
        return host
    return {"openai": "api.openai.com", "gemini": "Google Gemini", "vertex": "Google Vertex AI",
            "local": "this machine (embedded model)"}.get(kind, kind or "the model")


def effective_sharing(settings: Any, profile: Any = None, backend: Any = None,
                      env: Mapping[str, str] | None = None) -> str:
    """The level that applies: ``settings.data_sharing`` → ``SHELL_AGENT_LAB_DATA_SHARING`` → the
    profile's ``data_sharing`` → "rows" when nothing leaves the machine → :data:`REMOTE_DEFAULT`.
    An invalid environment or profile value fails closed to "schema"."""
    env = os.environ if env is None else env
    explicit = getattr(settings, "data_sharing", None)
    if explicit:
        return check_level(explicit) or "rows"
    if str(env.get(LEVEL_ENV, "")).strip():
        try:
            return check_level(env[LEVEL_ENV]) or "rows"
        except ValueError:
            return "schema"
    from_profile = _option(profile, "data_sharing") if profile is not None else None
    if from_profile is None and backend is not None:
        from_profile = _option(_profile_of(backend), "data_sharing") if _profile_of(backend) is not None else None
    if from_profile:
        try:
            return check_level(from_profile) or "rows"
        except ValueError:
            return "schema"
    if any(t is not None and leaves_machine(t, env) for t in (backend, profile)):
        return REMOTE_DEFAULT
    return "rows"


# -- labels: what a tool result holds -----------------------------------------------------------

def label(kind: str, *, rows: int | None = None, columns: Iterable[str] = (),
          views: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The label a tool puts in ``ToolResult.data["sharing"]``.

    ``kind``: "aggregate" (computed over many rows), "records" (individual rows or values) or
    "schema" (names, types and nothing read from the data). ``views``: the text the model reads
    at a level ("aggregates" or "schema") instead of the result, e.g. a description without
    sample values."""
    if kind not in _KINDS:
        raise ValueError(f"kind must be one of {', '.join(_KINDS)}")
    out: dict[str, Any] = {"kind": kind, "columns": [str(c) for c in columns][:60]}
    if rows is not None:
        out["rows"] = int(rows)
    if views:
        out["views"] = {k: str(v) for k, v in views.items() if k in LEVELS}
    return out


def record_meta(data: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The record meta that keeps a result's label (None when the tool gave none)."""
    found = (data or {}).get("sharing")
    if isinstance(found, Mapping) and found.get("kind") in _KINDS:
        return {"sharing": dict(found)}
    return None


_QUOTED = re.compile(r"'(?:[^']|'')*'")


def scrub_error(text: str) -> str:
    """An error message with its quoted values blanked (a conversion error quotes the value)."""
    return _QUOTED.sub("'…'", text)


_STRING = re.compile(r"""(?P<q>['"])(?P<body>(?:\\.|(?!(?P=q)).)*)(?P=q)""")
_NUMBER = re.compile(r"(?<![\w.])(?:\d[\d_]*\.\d+|\d{5,}(?:\.\d+)?)(?![\w.])")


def scrub_code(text: str, keep: Iterable[str] = ()) -> str:
    """Code with the values it may hold blanked: quoted strings other than the names in ``keep``
    (tables and columns, which code must name) and numbers with decimals or five digits or more
    (``df.head(10)`` keeps its 10). Code often carries data: ``df[df.name == 'Jane Doe']``."""
    names = {str(k) for k in keep}

    def string(match: re.Match[str]) -> str:
        body = match.group("body")
        return match.group(0) if body in names or not body else f"{match.group('q')}…{match.group('q')}"
    return _NUMBER.sub("…", _STRING.sub(string, text))


#: the record meta of an answer written in the notebook from results the model did not read (a
#: pandas program's output composed by code): below "rows" the model never reads it
COMPUTED_ANSWER = {"computed": True}


def answer_view(content: str, meta: Mapping[str, Any] | None, level: str) -> str:
    """The text of an assistant record the model reads at ``level``: the record itself, except an
    answer composed from results the model did not read (``COMPUTED_ANSWER``), which below
    "rows" holds the data the level keeps here."""
    if level == "rows" or not (isinstance(meta, Mapping) and meta.get("computed")):
        return content
    return (f"[an answer computed in the notebook from the data; shown to the user and not sent to the "
            f"model (data sharing: {level})]")


def _shape(tag: Mapping[str, Any], level: str) -> str:
    columns = [str(c) for c in tag.get("columns") or ()]
    cols = f" with columns {', '.join(columns)}" if columns else ""
    if level == "aggregates" and isinstance(tag.get("rows"), int):
        return f"{tag['rows']:,} row{'s' if tag['rows'] != 1 else ''}{cols}"
    return f"a result{cols}"


def model_view(tool: str | None, content: str, meta: Mapping[str, Any] | None, level: str, *,
               status: str | None = None) -> str:
    """The text of a tool result the model reads at ``level`` (the result itself at "rows")."""
    if level == "rows":
        return content
    name = tool or "the tool"
    tag = (meta or {}).get("sharing") if isinstance(meta, Mapping) else None
    if status == "error":
        return scrub_error(content)
    if not isinstance(tag, Mapping) or tag.get("kind") not in _KINDS:
        return (f"[{name} ran; its output is shown to the user in the notebook and is not sent to the "
                f"model (data sharing: {level}). Work from table and column names, and compute "
                "aggregates with query_sql or statistics.]")
    views = tag.get("views")
    if isinstance(views, Mapping) and level in views:
        return str(views[level])
    kind = tag["kind"]
    if kind == "schema" or (kind == "aggregate" and level == "aggregates"):
        return content
    if level == "aggregates":
        return (f"[{name} returned {_shape(tag, level)}: individual records, shown to the user in the "
                f"notebook and not sent to the model (data sharing: aggregates). To answer, compute "
                f"an aggregate (count, sum, avg, quantiles, GROUP BY a category) over at most "
                f"{AGGREGATE_MAX_ROWS} rows.]")
    return (f"[{name} returned {_shape(tag, level)}; it is shown to the user in the notebook and "
            "not sent to the model (data sharing: schema). The user reads the values there: say "
            "what was computed, without stating numbers.]")
