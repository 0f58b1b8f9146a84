"""Slash commands shared by the magic and the panel."""
from __future__ import annotations

import threading

import pytest

from shell_agent_lab.agent import AgentState
from shell_agent_lab.agent.commands import is_command, register_command, unregister_command, CommandResult
from shell_agent_lab.llm.scripted import ScriptedBackend

CORE = ["/data", "/findings", "/help", "/memory", "/model", "/profile", "/reset", "/sessions", "/stop"]


@pytest.mark.parametrize("text, expected", [
    ("/help", True), ("  /model gpt-4o", True), ("/Findings", True), ("/etc/passwd explain this", False),
    ("/ hello", False), ("what does /help do", False), ("/data/sales.csv", False), ("//x", False),
])
def test_is_command(text, expected):
    assert is_command(text) is expected


def test_help_lists_core_commands(make_agent):
    agent, _ = make_agent()
    result = agent.send("/help")
    assert result.phase == "command"
    usages = [row["usage"].split()[0] for row in result.cmd_result.data]
    assert set(CORE) <= set(usages)
    assert "| `/model [name]` |" in result.content


def test_unknown_command_lists_commands(make_agent, store):
    agent, _ = make_agent()
    r = agent.run("/frobnicate now")
    assert r.error.startswith("Unknown command /frobnicate. Commands: ")
    assert all(c in r.error for c in CORE)
    assert store.list_records(agent.session.id) == []      # never sent to the model


def test_path_like_message_goes_to_the_model(make_agent):
    backend = ScriptedBackend(["That is a system file."])
    agent, _ = make_agent(backend)
    assert agent.run("/etc/passwd what is it?").text == "That is a system file."


def test_findings_memory_sessions(make_agent, store):
    agent, _ = make_agent()
    sid = agent.session.id
    assert agent.run("/findings").text == "No findings in this session yet."
    f = store.findings.add(sid, "Tokyo sales spiked on 2026-02-16", tags=("high", "sales"))
    r = agent.run("/findings")
    assert f.id in r.text and "Tokyo sales spiked" in r.text and r.command.kind == "findings"
    store.global_memory.add("User prefers plotly", "preference", source="manual")
    store.session_memory.add(sid, "Data covers Q1", "fact", source="user_turn")
    mem = agent.run("/memory")
    assert "[preference] User prefers plotly" in mem.text and "[fact] Data covers Q1" in mem.text
    assert len(mem.command.data["global"]) == 1 and len(mem.command.data["session"]) == 1
    listing = agent.run("/sessions")
    assert f"● New Session — test.ipynb (`{sid}`)" in listing.text


def test_reset_starts_a_new_session_and_keeps_the_old(make_agent, store):
    backend = ScriptedBackend(["hi"])
    agent, rec = make_agent(backend)
    old = agent.session.id
    agent.run("hello")
    r = agent.run("/reset")
    assert r.error is None and agent.session.id != old
    assert agent.session.notebook_path == "test.ipynb"
    assert store.list_records(agent.session.id) == [] and len(store.list_records(old)) == 2
    assert rec.of("session_changed")[-1].data["session_id"] == agent.session.id


def test_stop_when_idle_and_when_busy(make_agent):
    started, release = threading.Event(), threading.Event()

    def held(messages, tools):
        started.set()
        release.wait(10)
        return "late"
    agent, _ = make_agent(ScriptedBackend([held]))
    assert agent.run("/stop").text == "Nothing is running."
    assert agent.send("long", wait=False).phase == "started"
    assert started.wait(10)
    stop = agent.send("/stop")        # commands run while a turn is Busy
    assert stop.phase == "command" and stop.content == "Stopped."
    release.set()
    assert agent.wait_idle(timeout=10) and agent.state == AgentState.READY


def test_model_with_a_fixed_backend(make_agent):
    agent, _ = make_agent(ScriptedBackend(model="tiny"))
    assert agent.run("/model").text == "Model: `scripted/tiny`"
    r = agent.run("/model other")
    assert "fixed backend (scripted/tiny)" in r.error


def test_model_and_profile_switch_through_the_factory(store, settings, make_agent):
    settings.profiles = {"work": {"backend": "scripted", "model": "w1"}, "home": {"backend": "scripted"}}
    built: list[tuple[str | None, str | None]] = []

    def factory(profile):
        model = settings.model or settings.profile_settings(profile).get("model") or "default"
        built.append((profile, model))
        return ScriptedBackend(["ok"], model=model)

    agent, rec = make_agent(None, backend_factory=factory)
    assert agent.run("/model").text == "Model: `scripted/default`"
    r = agent.run("/profile work")
    assert r.error is None and "`work`" in r.text
    assert store.get_session(agent.session.id).profile == "work"
    assert agent.backend.model == "w1"
    assert rec.of("profile_changed")[-1].data == {"profile": "work", "backend": "scripted", "model": "w1"}
    listing = agent.run("/profile").text
    assert "- ● `work`" in listing and "- ○ `home`" in listing
    assert agent.run("/model bigger").text == "Model: `scripted/bigger`"
    assert built[-1] == ("work", "bigger")
    bad = agent.run("/profile nope")
    assert bad.error == "/profile: unknown profile 'nope' (known: home, work). Usage: /profile [name]"


def test_model_switch_waits_for_background_work(store, settings, make_agent):
    settings.auto_extract = True
    order: list[str] = []
    release = threading.Event()
    extracting = threading.Event()

    def extractor(session, backend, cancel):
        extracting.set()
        release.wait(10)
        order.append("extraction finished")

    def factory(profile):
        order.append("backend built")
        return ScriptedBackend(["a"], model=settings.model or "m")

    agent, _ = make_agent(None, backend_factory=factory, extractor=extractor)
    agent.run("hello")
    assert extracting.wait(10)
    t = threading.Thread(target=lambda: agent.run("/model next"))
    t.start()
    release.set()
    t.join(10)
    assert order == ["backend built", "extraction finished", "backend built"]


def test_registered_command(make_agent):
    register_command("ping", lambda agent, args: CommandResult("ping", "pong " + " ".join(args)), "Answers pong.")
    try:
        agent, _ = make_agent()
        assert agent.run('/ping "a b" c').text == "pong a b c"
        assert "/ping" in agent.run("/help").text
    finally:
        assert unregister_command("/ping")


def test_a_failed_switch_keeps_the_previous_model_and_profile(store, settings, make_agent):
    from shell_agent_lab.llm.errors import ConfigurationError
    settings.profiles = {"work": {"backend": "scripted"}, "broken": {"backend": "replay"}}

    def factory(profile):
        if profile == "broken" or settings.model == "missing-model":
            raise ConfigurationError(f"cannot build {profile}/{settings.model}", hint="fix the profile")
        return ScriptedBackend(model=settings.model or "m")

    agent, _ = make_agent(None, backend_factory=factory)
    assert agent.run("/profile work").error is None
    r = agent.run("/profile broken")
    assert r.error == "/profile: cannot build broken/None — fix the profile"
    assert store.get_session(agent.session.id).profile == "work" and agent.profile == "work"
    assert agent.run("/model missing-model").error.startswith("/model: cannot build work/missing-model")
    assert settings.model is None and agent.backend.model == "m"
