"""ShellAgent settings: traitlets config, %config from a real IPython shell, clear validation errors."""
from __future__ import annotations

import pytest
from traitlets import TraitError
from traitlets.config import Config

from shell_agent_lab.config import ShellAgent


def test_defaults():
    s = ShellAgent()
    assert (s.approval_policy, s.max_tool_rounds, s.auto_extract, s.disabled_tools) == ("ask", 10, None, [])
    assert s.max_tool_call_args_bytes == 1024 * 1024
    assert (s.max_global_memory, s.max_session_memory, s.max_findings) == (100, 50, 100)


def test_config_object_and_canonical_names():
    cfg = Config()
    cfg.ShellAgent.approval_policy = "approve"
    cfg.ShellAgent.approval_overrides = {"query-sql": False}
    cfg.ShellAgent.disabled_tools = ["remember-fact"]
    s = ShellAgent(config=cfg)
    assert s.approval_policy == "approve"
    assert s.approval_overrides == {"query_sql": False}
    assert s.disabled() == frozenset({"remember_fact"})


def test_percent_config_in_a_real_shell():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        settings = ShellAgent(parent=shell)
        shell.configurables.append(settings)
        shell.run_line_magic("config", 'ShellAgent.approval_policy = "decline"')
        shell.run_line_magic("config", "ShellAgent.max_tool_rounds = 4")
        shell.run_line_magic("config", 'ShellAgent.approval_overrides = {"list-tables": True}')
        assert settings.approval_policy == "decline"
        assert settings.max_tool_rounds == 4
        assert settings.approval_overrides == {"list_tables": True}
    finally:
        InteractiveShell.clear_instance()


@pytest.mark.parametrize("trait, value, message", [
    ("max_tool_rounds", 0, "between 1 and 100"),
    ("approval_policy", "maybe", "approval_policy"),
    ("approval_overrides", {"query_sql": "yes"}, "must be True (ask) or False (run freely)"),
    ("profiles", {"bad name!": {}}, "not a valid profile name"),
    ("profiles", {"work": {"backend": "openai", "modle": "x"}}, "unknown key(s) modle"),
    ("profiles", {"work": "openai"}, "must be a dict"),
    ("max_context_tokens", 10, "at least 512"),
    ("max_findings", 0, "positive"),
])
def test_bad_values_are_refused_with_a_clear_message(trait, value, message):
    s = ShellAgent()
    with pytest.raises(TraitError) as err:
        setattr(s, trait, value)
    assert message in str(err.value)


def test_profile_settings_lists_known_profiles():
    s = ShellAgent(profiles={"work": {"backend": "openai", "model": "m"}})
    assert s.profile_settings("work") == {"backend": "openai", "model": "m"}
    assert s.profile_settings(None) == {}
    with pytest.raises(KeyError, match=r"unknown profile 'home' \(known: work\)"):
        s.profile_settings("home")
