"""Settings: one traitlets ``Configurable`` read by the agent on every turn.

Set values from a notebook with ``%config ShellAgent.approval_policy = "approve"``, from
``ipython_config.py`` (``c.ShellAgent.max_tool_rounds = 6``) or in code
(``ShellAgent(model="gpt-4o-mini")``). API keys never live here: backends read them from
the environment.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from traitlets import Bool, Dict, Enum, Float, Int, List, TraitError, Unicode, validate
from traitlets.config import Configurable

from .tool_names import canonical_tool_name

__all__ = ["ShellAgent", "APPROVAL_POLICIES"]

APPROVAL_POLICIES = ("ask", "ask_all", "approve", "decline")
_PROFILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
_PROFILE_KEYS = frozenset({"backend", "model", "endpoint", "base_url", "api_key_env", "options",
                           "project", "location", "auto_extract", "auto_title",
                           "max_context_tokens", "output_reserve", "timeout", "max_warm_tokens",
                           "max_tool_result_tokens", "mcp_servers", "connections",
                           "data_sharing", "treat_as_remote"})


class ShellAgent(Configurable):
    """Everything a user can configure about the assistant in this kernel."""

    data_dir = Unicode(None, allow_none=True, config=True,
                       help="Where sessions, memory and tables are kept "
                            "(SHELL_AGENT_LAB_DATA_DIR wins when set).")
    profile = Unicode(None, allow_none=True, config=True,
                      help="The profile new sessions use (a key of `profiles`); "
                           "None picks a backend automatically.")
    profiles = Dict(config=True,
                    help='Named backends: {"work": {"backend": "openai", "model": "gpt-4o-mini", '
                         '"endpoint": "https://…/v1", "options": {...}}}.')
    model = Unicode(None, allow_none=True, config=True,
                    help="Model name that overrides the profile's model.")
    approval_policy = Enum(APPROVAL_POLICIES, default_value="ask", config=True,
                           help='What happens when a tool needs approval: "ask" a human (declined '
                                'with a notice when none can answer), "approve" or "decline". Under '
                                '"ask", reads of the session\'s own data run without asking while their '
                                'results stay on this machine; "ask_all" asks for those too.')
    approval_overrides = Dict(config=True,
                              help='Per-tool approval: {"query_sql": False} runs it without asking, '
                                   '{"list_tables": True} always asks.')
    cells = Enum(("insert", "off"), default_value="insert", config=True,
                 help='"insert": the SQL and code behind an answer become cells below the asking cell '
                      '(in JupyterLab they are inserted and run; without a frontend they are kept in '
                      '`r.cells` and written by `%agent /cells`). "off": answers stay in the output.')
    disabled_tools = List(Unicode(), config=True,
                          help="Tools never offered to the model.")
    auto_extract = Bool(None, allow_none=True, config=True,
                        help="Extract memories after each turn; None uses the backend's default "
                             "(on for remote models, off for the embedded local one).")
    auto_title = Bool(None, allow_none=True, config=True,
                      help="Name a new session from its first message; None uses the backend's default.")
    schema_in_prompt = Bool(None, allow_none=True, config=True,
                            help="Put the tables' columns in the system prompt; None does it for local "
                                 "models, which need it to write SQL.")
    tool_set = Unicode(None, allow_none=True, config=True,
                       help='"full" offers every tool on every request; "compact" offers query_sql and '
                            'statistics plus the tool of the way the message goes (route_by_model), with '
                            'a short base prompt, and requires a tool call to start the answer to a '
                            'question about the data. None: compact for local models (a profile may set '
                            '"tool_set"), full otherwise.')
    answer_strategy = Enum(("auto", "program", "operation", "tools"), default_value="auto", config=True,
                           help='How a question about the data is answered: "program" (the model writes a '
                                'short pandas program over the notebook\'s DataFrames; the product checks it, '
                                'runs it on read-only views and writes the answer from what it printed, or '
                                'says what could not be computed and why), "operation" (the model fills one '
                                'typed operation under a schema of the real columns; measured, not the default), '
                                '"tools" (the SQL and statistics '
                                'tool loop), "auto" (program with the compact tool set, i.e. local models; '
                                'tools otherwise).')
    program_timeout = Float(30.0, config=True, help="Seconds a pandas program may run before it is stopped.")
    route_by_model = Bool(True, config=True,
                          help="With the compact tool set: where a message names no answer form, file or "
                               "tool, ask the model (under a schema of the ways) whether it is a question "
                               "about the data, a request for a chart, a memory, a Finding, a file, a "
                               "report …, or a reply in words. False: every message about loaded data goes "
                               "the answer way without asking.")
    max_tool_rounds = Int(10, config=True, help="Model calls per turn before the turn stops.")
    question_budget = Float(90.0, config=True,
                            help="Seconds one question may take (model requests and tool calls); when "
                                 "they are spent the answer is what the tools returned so far. 0: no limit.")
    max_tool_call_args_bytes = Int(1024 * 1024, config=True,
                                   help="Largest tool-call argument object accepted (bytes of JSON).")
    max_global_memory = Int(100, config=True, help="Global Memory cap.")
    max_session_memory = Int(50, config=True, help="Session Memory cap per session.")
    max_findings = Int(100, config=True, help="Findings cap per session.")
    max_query_rows = Int(10_000, config=True, help="Rows a chat query may return.")
    tools_dir = Unicode(None, allow_none=True, config=True,
                        help="Folder of executable script tools (default: <data dir>/tools).")
    mcp_servers = Dict(config=True,
                       help='stdio MCP servers: {"files": {"command": "npx", "args": [...], "env": {...}, '
                            '"timeout": 30}}; a profile may add its own under "mcp_servers".')
    connections = Dict(config=True,
                       help='Named read-only connections: {"pg": "postgresql://analyst@db:5432/sales", '
                            '"spark": "sc://cluster:15002"}; secrets from ${ENV} references in the URL, '
                            'SHELL_AGENT_LAB_SECRET_<NAME>, or ~/.pgpass; a profile may add its own under '
                            '"connections".')
    max_context_tokens = Int(None, allow_none=True, config=True,
                             help="Context budget in tokens; None uses the backend's default.")
    data_sharing = Enum(("rows", "aggregates", "schema"), default_value=None, allow_none=True, config=True,
                        help='What the model may read of the data: "rows" (results as they are), '
                             '"aggregates" (names, types and aggregate results; listings of records '
                             'stay in the notebook) or "schema" (names and types only). None: "rows" '
                             'for the embedded model and servers on this machine, "aggregates" for '
                             'a remote endpoint; a profile may set "data_sharing".')
    run_python_timeout = Float(120.0, allow_none=True, config=True,
                               help="Seconds code approved for run_python may run before it is interrupted; "
                                    "None or 0 for no limit (Stop still interrupts it).")

    # -- validation: bad values are refused with one actionable line --------------------------
    @validate("data_dir")
    def _check_data_dir(self, proposal: Any) -> str | None:
        value = proposal["value"]
        if value and not Path(value).expanduser().is_absolute():
            raise TraitError(f"ShellAgent.data_dir must be an absolute path (or start with ~), got {value!r}: "
                             "kernels and the command line run in different folders")
        return value

    @validate("max_tool_rounds")
    def _check_rounds(self, proposal: Any) -> int:
        value = proposal["value"]
        if not 1 <= value <= 100:
            raise TraitError(f"ShellAgent.max_tool_rounds must be between 1 and 100, got {value}")
        return value

    @validate("max_tool_call_args_bytes", "max_global_memory", "max_session_memory",
              "max_findings", "max_query_rows")
    def _check_positive(self, proposal: Any) -> int:
        value = proposal["value"]
        if value < 1:
            raise TraitError(f"ShellAgent.{proposal['trait'].name} must be a positive number, got {value}")
        return value

    @validate("question_budget")
    def _check_question_budget(self, proposal: Any) -> float:
        value = proposal["value"]
        if value < 0:
            raise TraitError(f"ShellAgent.question_budget must be a number of seconds (0 for no limit), got {value}")
        return value

    @validate("run_python_timeout")
    def _check_run_python_timeout(self, proposal: Any) -> float | None:
        value = proposal["value"]
        if value is not None and value < 0:
            raise TraitError(f"ShellAgent.run_python_timeout must be a number of seconds (or None), got {value}")
        return value

    @validate("max_context_tokens")
    def _check_context(self, proposal: Any) -> int | None:
        value = proposal["value"]
        if value is not None and value < 512:
            raise TraitError(f"ShellAgent.max_context_tokens must be at least 512 (or None), got {value}")
        return value

    @validate("approval_overrides")
    def _check_overrides(self, proposal: Any) -> dict[str, bool]:
        out: dict[str, bool] = {}
        for name, value in proposal["value"].items():
            if not isinstance(name, str) or not name.strip():
                raise TraitError("ShellAgent.approval_overrides keys must be tool names")
            if not isinstance(value, bool):
                raise TraitError(
                    f"ShellAgent.approval_overrides[{name!r}] must be True (ask) or False (run freely), "
                    f"got {value!r}")
            out[canonical_tool_name(name)] = value
        return out

    @validate("disabled_tools")
    def _check_disabled(self, proposal: Any) -> list[str]:
        return [canonical_tool_name(n) for n in proposal["value"] if n.strip()]

    @validate("profiles")
    def _check_profiles(self, proposal: Any) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for name, body in proposal["value"].items():
            if not isinstance(name, str) or not _PROFILE_NAME.match(name):
                raise TraitError(f"ShellAgent.profiles: {name!r} is not a valid profile name "
                                 "(letters, digits, '_', '-', '.')")
            if not isinstance(body, dict):
                raise TraitError(f"ShellAgent.profiles[{name!r}] must be a dict like "
                                 '{"backend": "openai", "model": "gpt-4o-mini"}')
            unknown = sorted(set(body) - _PROFILE_KEYS)
            if unknown:
                raise TraitError(f"ShellAgent.profiles[{name!r}]: unknown key(s) {', '.join(unknown)}; "
                                 f"known: {', '.join(sorted(_PROFILE_KEYS))}")
            level = body.get("data_sharing")
            if level is not None and level not in ("rows", "aggregates", "schema"):
                raise TraitError(f"ShellAgent.profiles[{name!r}]: data_sharing must be \"rows\", "
                                 f"\"aggregates\" or \"schema\", got {level!r}")
            out[name] = dict(body)
        return out

    @validate("profile")
    def _check_profile(self, proposal: Any) -> str | None:
        value = proposal["value"]
        if value is not None and not value.strip():
            return None
        return value

    # -- helpers the agent uses ---------------------------------------------------------------
    def disabled(self) -> frozenset[str]:
        return frozenset(self.disabled_tools)

    def profile_settings(self, name: str | None) -> dict[str, Any]:
        """The named profile's dict ({} for None); unknown names raise ``KeyError`` with the known ones."""
        if name is None:
            return {}
        try:
            return dict(self.profiles[name])
        except KeyError:
            known = ", ".join(sorted(self.profiles)) or "none configured"
            raise KeyError(f"unknown profile {name!r} (known: {known})") from None
