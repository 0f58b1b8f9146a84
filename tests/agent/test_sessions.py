"""Sessions, titles, engines and the build_agent factory."""
from __future__ import annotations

import threading

import pytest

from shell_agent_lab.agent import Agent, build_agent
from shell_agent_lab.config import ShellAgent
from shell_agent_lab.llm.scripted import ScriptedBackend


class Engine:
    """Stands in for the analysis engine: records that it was opened and closed."""

    def __init__(self, session) -> None:
        self.session_id = session.id
        self.closed = False

    def close(self) -> None:
        self.closed = True


def test_open_session_by_notebook_key_and_privacy(make_agent, store):
    agent, rec = make_agent()
    first = agent.session
    assert agent.open_session(None, notebook_path="test.ipynb").id == first.id
    keyed = agent.open_session(None, notebook_path="renamed.ipynb", key="nb-key-1")
    assert keyed.id != first.id and store.find_session(key="nb-key-1").id == keyed.id
    assert agent.open_session(None, key="nb-key-1").id == keyed.id
    private = agent.open_session(None, notebook_path="test.ipynb", private=True)
    assert private.private and private.id != first.id
    assert agent.open_session(first.id).id == first.id
    with pytest.raises(KeyError, match="no session with id 'nope'"):
        agent.open_session("nope")
    changes = [e.data["session_id"] for e in rec.of("session_changed")]
    assert changes[-1] == first.id


def test_open_session_resets_the_guard_and_switches_engines(make_agent, store):
    engines: list[Engine] = []

    def factory(session):
        engines.append(Engine(session))
        return engines[-1]

    agent, _ = make_agent(engine_factory=factory)
    sid = agent.session.id
    assert agent.engine().session_id == sid
    tag = agent._builder.guard_tag(sid)
    other = agent.open_session(None, notebook_path="other.ipynb")
    assert engines[0].closed and agent.engine().session_id == other.id
    agent.open_session(sid)
    assert agent._builder.guard_tag(sid) != tag          # a reloaded session gets a fresh nonce
    assert [e.closed for e in engines] == [True, True, False]


def test_open_session_drains_background_work_first(make_agent, settings):
    settings.auto_extract = True
    order: list[str] = []
    holding, release = threading.Event(), threading.Event()

    def extractor(session, backend, cancel):
        holding.set()
        release.wait(10)
        order.append("extracted " + session.notebook_path)

    agent, rec = make_agent(ScriptedBackend(["a"]), extractor=extractor)
    agent.run("hello")
    assert holding.wait(10)
    assert agent.wait_idle(timeout=0.01) is False
    t = threading.Thread(target=lambda: order.append(
        "switched to " + agent.open_session(None, notebook_path="next.ipynb").notebook_path))
    t.start()
    release.set()
    t.join(10)
    assert order == ["extracted test.ipynb", "switched to next.ipynb"]


def test_first_turn_gets_a_title(make_agent, settings, store):
    settings.auto_title = True
    backend = ScriptedBackend(["Q1 is up 12%.", '"Quarterly sales review"'])
    agent, rec = make_agent(backend)
    agent.run("how did Q1 sales do?")
    assert agent.wait_idle(timeout=10)
    assert store.get_session(agent.session.id).title == "Quarterly sales review"
    assert agent.session.title == "Quarterly sales review"
    assert rec.of("session_renamed")[0].data["title"] == "Quarterly sales review"
    assert backend.requests[1].last_user == "how did Q1 sales do?"
    backend.enqueue("Second answer.")
    agent.run("and Q2?")
    assert agent.wait_idle(timeout=10)
    assert len(backend.requests) == 3               # no title request after the first turn


def test_title_skipped_when_renamed_or_too_long(make_agent, settings, store):
    settings.auto_title = True
    backend = ScriptedBackend(["answer", "x" * 61])
    agent, _ = make_agent(backend)
    agent.run("hello")
    assert agent.wait_idle(timeout=10)
    assert store.get_session(agent.session.id).title == "New Session"
    other, _ = make_agent(ScriptedBackend(["answer"]), notebook="renamed.ipynb")
    store.rename_session(other.session.id, "My analysis")
    other.refresh_session()
    other.run("hello")
    assert other.wait_idle(timeout=10)
    assert store.get_session(other.session.id).title == "My analysis"


def test_misconfigured_backend_gives_a_clear_error_and_keeps_the_message(store, settings):
    settings.profiles = {"demo": {"backend": "replay"}}
    settings.profile = "demo"
    agent = build_agent(settings, store=store)
    agent.open_session(None, notebook_path="x.ipynb")
    r = agent.run("hello")
    assert r.error.startswith("profile 'demo': a replay profile needs options.cassette")
    assert "\n" not in r.error
    assert [x.content for x in store.list_records(agent.session.id)] == ["hello"]
    assert agent.state.value == "READY"


def test_build_agent_wires_the_builtin_tools(store):
    backend = ScriptedBackend(["fine"])
    agent = build_agent(ShellAgent(auto_extract=False), store=store, backend=backend,
                        namespace=lambda: {"x": 1})
    assert isinstance(agent, Agent)
    names = [d.name for d in agent.registry.all()]
    assert {"remember_fact", "resolve_date"} <= set(names) and names == sorted(names)
    assert agent.run("hi").text == "fine"
    agent.close()


def test_an_engine_that_cannot_open_does_not_block_chat(make_agent, store):
    def refuse(session):
        raise OSError("database is locked by another process")

    agent, _ = make_agent(ScriptedBackend(["Still here."]), engine_factory=refuse)
    assert agent.run("hello").text == "Still here."
    data = agent.run("/data")
    assert data.error is None and "database is locked by another process" in data.text


def test_auto_extract_enabled_follows_setting_profile_and_backend(make_agent, settings):
    agent, _ = make_agent(ScriptedBackend())
    assert agent.auto_extract_enabled() is False          # settings fixture: off
    settings.auto_extract = None
    assert agent.auto_extract_enabled() is False          # scripted double: off by default
    remote = ScriptedBackend()
    remote.auto_extract_default = True
    assert agent.auto_extract_enabled(backend=remote) is True
    settings.auto_extract = True
    assert agent.auto_extract_enabled() is True


def test_no_title_request_when_titles_are_off(make_agent, store):
    backend = ScriptedBackend(["only the answer"])
    agent, _ = make_agent(backend)
    agent.run("first message")
    assert agent.wait_idle(timeout=10)
    assert len(backend.requests) == 1 and store.get_session(agent.session.id).title == "New Session"


def test_a_rename_published_by_a_front_door_refreshes_the_session(make_agent, store):
    agent, _ = make_agent()
    sid = agent.session.id
    store.rename_session(sid, "Churn study")
    agent.events.publish("session_renamed", {"session_id": sid, "title": "Churn study"}, session_id=sid)
    assert agent.session.title == "Churn study" and agent.session.title_locked


def test_build_agent_maps_the_query_row_cap_onto_the_engine(store, tmp_path):
    import pandas as pd
    from shell_agent_lab.llm.scripted import call

    namespace = {"people": pd.DataFrame({"name": ["a", "b", "c"]})}
    backend = ScriptedBackend([call("query_sql", {"sql": "SELECT name FROM people"}, id="q"), "ok"])
    settings = ShellAgent(auto_extract=False, max_query_rows=2, approval_overrides={"query_sql": False})
    agent = build_agent(settings, store=store, backend=backend, namespace=lambda: namespace, base_dir=tmp_path)
    try:
        agent.open_session(None, notebook_path="people.ipynb")
        agent.run("list people")
        tool = [r for r in store.list_records(agent.session.id) if r.role == "tool"][0]
        assert tool.status == "error" and "more than 2 rows" in tool.content
    finally:
        agent.close()


def test_reopening_the_same_session_reopens_its_engine(make_agent):
    engines: list[Engine] = []
    agent, _ = make_agent(engine_factory=lambda s: engines.append(Engine(s)) or engines[-1])
    first = agent.engine()
    agent.open_session(agent.session.id)
    assert first.closed and agent.engine() is not first and not agent.engine().closed
