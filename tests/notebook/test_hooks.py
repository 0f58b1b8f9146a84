"""The environment hooks: a replay cassette for the notebooks, a scripted model for kernel tests,
and the session identity the server gives the kernel."""
from __future__ import annotations

import json

import pytest

from shell_agent_lab.config import ShellAgent
from shell_agent_lab.llm.errors import ConfigurationError
from shell_agent_lab.notebook._cassette import apply_cassette
from shell_agent_lab.notebook._script import load_script
from shell_agent_lab.notebook.identity import Frontend, base_dir, detect_frontend, notebook_path


def test_cassette_env_selects_a_replay_profile_recording_from_the_local_model():
    s = ShellAgent()
    assert apply_cassette(s, {}) is False and s.profile is None
    assert apply_cassette(s, {"SHELL_AGENT_LAB_CASSETTE": "/c/quickstart.json"}) is True
    assert s.profile == "replay"
    assert s.profiles["replay"] == {"backend": "replay", "options": {"cassette": "/c/quickstart.json",
                                                                      "source": {"backend": "local"}}}


def test_cassette_source_as_json_or_profile_name():
    s = ShellAgent()
    apply_cassette(s, {"SHELL_AGENT_LAB_CASSETTE": "c.json",
                       "SHELL_AGENT_LAB_CASSETTE_SOURCE": '{"backend": "openai", "model": "m"}'})
    assert s.profiles["replay"]["options"]["source"] == {"backend": "openai", "model": "m"}
    apply_cassette(s, {"SHELL_AGENT_LAB_CASSETTE": "c.json", "SHELL_AGENT_LAB_CASSETTE_SOURCE": "work"})
    assert s.profiles["replay"]["options"]["source"] == "work"
    with pytest.raises(ValueError, match="not valid JSON"):
        apply_cassette(s, {"SHELL_AGENT_LAB_CASSETTE": "c.json", "SHELL_AGENT_LAB_CASSETTE_SOURCE": "{nope"})


def test_script_file_replies_and_tool_calls(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(["hi", {"text": "", "tool_calls": [{"name": "query_sql", "arguments": {"sql": "x"}}]}]))
    backend = load_script(path)
    assert backend.chat([]).text == "hi"
    call = backend.chat([]).tool_calls[0]
    assert (call.name, call.arguments) == ("query_sql", {"sql": "x"})


@pytest.mark.parametrize("content, fragment", [
    ("not json", "cannot read the model script"),
    ('{"a": 1}', "must hold a JSON list"),
    ('[{"tool_calls": [{}]}]', "needs a name"),
    ("[3]", "must be a string"),
])
def test_bad_scripts_are_refused_clearly(tmp_path, content, fragment):
    path = tmp_path / "s.json"
    path.write_text(content)
    with pytest.raises(ConfigurationError, match=fragment):
        load_script(path)


def test_notebook_path_from_namespace_or_server_env():
    assert notebook_path({"__session__": "/w/a.ipynb"}, {}) == "/w/a.ipynb"
    assert notebook_path({}, {"JPY_SESSION_NAME": "/w/sub/../b.ipynb"}) == "/w/b.ipynb"
    assert notebook_path({"__session__": "console-1"}, {}) is None          # a console, not a notebook
    assert notebook_path({"__session__": "rel.ipynb"}, {}) is None
    assert notebook_path({"__vsc_ipynb_file__": "/w/c.ipynb"}, {}) == "/w/c.ipynb"
    assert str(base_dir("/w/sub/a.ipynb")) == "/w/sub"


class _Kernel:
    def __init__(self, allow):
        self._allow_stdin = allow


class _Shell:
    def __init__(self, kernel=None, ns=None):
        self.kernel, self.user_ns = kernel, ns or {}


def test_frontend_detection():
    nb = {"__session__": "/w/a.ipynb"}
    assert detect_frontend(_Shell(_Kernel(True), nb), {}) == Frontend("widgets")
    assert detect_frontend(_Shell(_Kernel(False), nb), {}) == Frontend("headless")      # nbclient, nbval
    assert detect_frontend(_Shell(_Kernel(True)), {}) == Frontend("stdin")              # a console
    assert detect_frontend(_Shell(_Kernel(True)), {}, panel_connected=True).kind == "widgets"
    assert detect_frontend(_Shell(), {}, stdin_is_tty=True) == Frontend("terminal")
    assert detect_frontend(_Shell(), {}, stdin_is_tty=False) == Frontend("headless")
    assert detect_frontend(_Shell(_Kernel(True), nb), {}, forced="headless").kind == "headless"
    assert Frontend("widgets").live and not Frontend("stdin").live and not Frontend("headless").human


def test_insert_cell_prefers_the_newest_frontend_hook(shell):
    from shell_agent_lab.notebook.runtime import get_runtime

    rt = get_runtime(shell)
    got: list[str] = []
    rt.insert_cell_handlers.append(lambda code: got.append("stale") or True)   # a closing connection
    rt.insert_cell_handlers.append(lambda code: got.append("live") or True)
    try:
        assert rt.insert_cell("x = 1") is True
        assert got == ["live"]
    finally:
        rt.insert_cell_handlers.clear()
