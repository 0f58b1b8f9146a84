"""Operations that must not overlap a turn (export, model/profile switch, session switch) and Stop
racing the end of a turn. Every interleaving is forced with events and injected hooks: no sleeps.

``wait_for_turn_or_waiter`` waits on the agent's own condition until either a turn has started
(what happened before the maintenance hold existed) or the send is parked behind the hold.
"""
from __future__ import annotations

import threading
from typing import Any

import pytest

from shell_agent_lab.agent import AgentBusyError, AgentState
from shell_agent_lab.llm.scripted import ScriptedBackend, call
from shell_agent_lab.tools.registry import ToolDescriptor, ToolRegistry
from tests.support.maintenance import ProbeEngine, wait_for_turn_or_waiter


class HeldAnswer:
    """A scripted answer that signals it started and waits to be released."""

    def __init__(self, text: str = "ok") -> None:
        self.text = text
        self.started = threading.Event()
        self.release = threading.Event()

    def __call__(self, messages, tools):
        self.started.set()
        assert self.release.wait(10), "test never released the model"
        return self.text


def probe_registry() -> ToolRegistry:
    """One tool that reports whether the engine the turn was given is closed."""
    return ToolRegistry([ToolDescriptor("probe", "engine state", {"type": "object", "properties": {}},
                                        lambda ctx, args: f"closed={ctx.engine.closed}")])


# -- 1. export vs a turn starting ------------------------------------------------------------
@pytest.fixture
def export_race(make_agent):
    """An agent whose engine's close (done by an export) lets a turn try to start first."""
    answer = HeldAnswer("done")
    backend = ScriptedBackend([answer, call("probe", {}), "finished"])
    engines: list[ProbeEngine] = []
    box: dict[str, Any] = {}

    def start_turn_during_close() -> None:
        t = threading.Thread(target=lambda: box.setdefault("reply", agent.run("go")), daemon=True)
        box["thread"] = t
        t.start()
        if wait_for_turn_or_waiter(agent) == "busy":      # the turn slipped in: let it take the engine
            assert answer.started.wait(10)

    def factory(session):
        engine = ProbeEngine(hook=start_turn_during_close if not engines else None)
        engines.append(engine)
        return engine

    agent, rec = make_agent(backend, registry=probe_registry(), engine_factory=factory)
    return agent, engines, answer, box


def _finish_turn(agent, answer, box):
    answer.release.set()
    box["thread"].join(10)
    assert agent.wait_idle(timeout=10)
    return box["reply"]


def test_export_holds_turns_out_and_the_next_turn_gets_an_open_engine(export_race, store, tmp_path):
    agent, engines, answer, box = export_race
    result = agent.export_session(tmp_path)
    assert result.path.is_file() and result.session_id == agent.session.id
    reply = _finish_turn(agent, answer, box)
    assert reply.error is None and reply.text == "done"
    assert engines[0].closed and len(engines) == 2
    assert agent.engine() is engines[1] and not engines[1].closed
    # the held turn ran after the export, on the reopened engine
    assert agent.run("again").text == "finished"
    probes = [r.content for r in store.list_records(agent.session.id) if r.role == "tool"]
    assert probes == ["closed=False"]


def test_a_turn_that_cannot_wait_any_longer_is_refused_with_one_line(make_agent):
    agent, rec = make_agent(ScriptedBackend(["never"]))
    agent.maintenance_wait = 0
    with agent.maintenance("export the session"):
        out: dict[str, Any] = {}
        t = threading.Thread(target=lambda: out.setdefault("r", agent.send("hello")))
        t.start()
        t.join(10)
    result = out["r"]
    assert result.phase == "error"
    assert result.error_message == ("Not sent: the assistant is busy (export the session); "
                                    "send the message again in a moment.")
    assert "\n" not in result.error_message
    assert agent.state == AgentState.READY and agent.run("/help").error is None


def test_a_send_waiting_for_the_hold_gives_up_on_stop(make_agent, store):
    agent, rec = make_agent(ScriptedBackend(["never"]))
    out: dict[str, Any] = {}
    with agent.maintenance("change the model"):
        t = threading.Thread(target=lambda: out.setdefault("r", agent.run("hello")))
        t.start()
        assert wait_for_turn_or_waiter(agent) == "waiting"
        agent.abort()
        t.join(10)
    assert out["r"].error == "Cancelled before it was sent."
    finished = rec.wait_for("turn_finished")
    assert finished.data["phase"] == "error" and finished.data["error"] == "Cancelled before it was sent."
    assert [r.role for r in store.list_records(agent.session.id)] == []


def test_the_hold_is_refused_while_a_turn_runs_and_from_the_holders_own_send(make_agent):
    answer = HeldAnswer()
    agent, _ = make_agent(ScriptedBackend([answer]))
    t = threading.Thread(target=lambda: agent.run("long"))
    t.start()
    assert answer.started.wait(10)
    with pytest.raises(AgentBusyError, match=r"^cannot export the session while a turn runs; .*press Stop"):
        with agent.maintenance("export the session"):
            pass
    answer.release.set()
    t.join(10)
    assert agent.wait_idle(timeout=10)
    with agent.maintenance("switch sessions"):
        with agent.maintenance("export the session"):       # the holder may nest
            pass
        refused = agent.send("from the holder")                # would wait for itself: refused at once
        assert refused.phase == "error" and "switch sessions" in refused.error_message
    assert agent.run("/help").error is None


def test_the_hold_waits_bounded_for_extraction(make_agent, settings):
    settings.auto_extract = True
    started, release = threading.Event(), threading.Event()

    def extractor(session, backend, cancel):
        started.set()
        assert release.wait(10)

    agent, _ = make_agent(ScriptedBackend(["a"]), extractor=extractor)
    agent.run("one")
    assert started.wait(10)
    with pytest.raises(AgentBusyError, match="memory extraction is still running"):
        with agent.maintenance("export the session", timeout=0):
            pass
    release.set()
    with agent.maintenance("export the session", timeout=10):
        assert agent.state == AgentState.READY


# -- 2. model / profile switch vs a turn starting ----------------------------------------------
def test_model_switch_never_closes_the_backend_a_starting_turn_picked_up(make_agent, settings):
    answer = HeldAnswer("answer")
    used: list[tuple[str, bool]] = []
    building, release_build = threading.Event(), threading.Event()
    built: list[ScriptedBackend] = []

    def make_backend(model: str) -> ScriptedBackend:
        backend = ScriptedBackend(model=model)

        def respond(messages, tools):
            text = answer(messages, tools)
            used.append((backend.model, backend.closed))     # closed under the running turn?
            return text
        backend.set_fn(respond)
        return backend

    def factory(profile):
        if built:                                  # the switch: pause after the idle check
            building.set()
            assert release_build.wait(10)
        built.append(make_backend(settings.model or "first"))
        return built[-1]

    agent, _ = make_agent(None, backend_factory=factory)
    assert agent.backend.model == "first"
    switch = threading.Thread(target=lambda: agent.set_model("second"))
    switch.start()
    assert building.wait(10)
    out: dict[str, Any] = {}
    turn = threading.Thread(target=lambda: out.setdefault("r", agent.run("hello")))
    turn.start()
    if wait_for_turn_or_waiter(agent) == "busy":
        assert answer.started.wait(10)             # the turn is talking to the first backend
    release_build.set()
    switch.join(10)
    answer.release.set()
    turn.join(10)
    assert out["r"].error is None and out["r"].text == "answer"
    assert used == [("second", False)]
    assert built[0].closed and not built[1].closed


class SignallingLock:
    """A lock that says when a second thread has to wait for it."""

    def __init__(self, contended: threading.Event) -> None:
        self._lock = threading.Lock()
        self.contended = contended

    def __enter__(self) -> "SignallingLock":
        if not self._lock.acquire(blocking=False):
            self.contended.set()
            self._lock.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


def test_a_switch_and_a_concurrent_first_use_build_one_backend_at_a_time(make_agent, settings):
    settings.profiles = {"work": {"backend": "scripted"}}
    building, release_build = threading.Event(), threading.Event()
    arrived = threading.Event()         # the reader waits for the build lock, or builds a second backend
    built: list[ScriptedBackend] = []

    def factory(profile):
        if profile == "work":
            if building.is_set():
                arrived.set()
            else:
                building.set()
                assert release_build.wait(10)
        built.append(ScriptedBackend(["ok"], model=profile or "default"))
        return built[-1]

    agent, _ = make_agent(None, backend_factory=factory)
    agent._backends._build_lock = SignallingLock(arrived)
    switch = threading.Thread(target=lambda: agent.set_profile("work"))
    switch.start()
    assert building.wait(10)
    got: dict[str, Any] = {}
    reader = threading.Thread(target=lambda: got.setdefault("b", agent.backend))   # e.g. the panel's settings
    reader.start()
    assert arrived.wait(10)
    release_build.set()
    switch.join(10)
    reader.join(10)
    current = agent.backend
    assert current.model == "work" and not current.closed
    assert got["b"] is current                      # the reader did not build (and close) another
    assert [b for b in built if not b.closed] == [current]


# -- 3. Stop as the answer arrives ---------------------------------------------------------------
class StopAtTheEnd(ScriptedBackend):
    """Reading ``auto_extract_default`` after the answer arrived presses Stop (the end-of-turn
    check reads it): the narrowest window between the answer and the extraction phase."""

    def __init__(self, responses, on_end) -> None:
        super().__init__(responses)
        self.answered = False
        self.on_end = on_end

    @property
    def auto_extract_default(self) -> bool:
        if self.answered and self.on_end is not None:
            hook, self.on_end = self.on_end, None
            hook()
        return True


def test_stop_as_the_answer_arrives_cancels_the_extraction(make_agent, settings):
    settings.auto_extract = None           # let the backend's default decide (read at the end)
    calls: list[str] = []

    def extractor(session, backend, cancel):
        calls.append("extracted")

    holder: dict[str, Any] = {}

    def answer(messages, tools):
        backend.answered = True
        return "the answer"

    backend = StopAtTheEnd([answer], on_end=lambda: holder["agent"].abort())
    agent, rec = make_agent(backend, extractor=extractor)
    holder["agent"] = agent
    reply = agent.run("question")
    assert reply.text == "the answer"
    assert agent.wait_idle(timeout=10)
    assert calls == []
    assert "extraction_started" not in rec.types()
    assert agent.state == AgentState.READY


def test_stop_while_the_extraction_reply_arrives_stores_nothing(make_agent, settings, store):
    settings.auto_extract = True
    extraction = HeldAnswer("preference|turn-1|User wants charts drawn with plotly|")
    backend = ScriptedBackend(["Noted.", extraction])
    agent, rec = make_agent(backend)
    agent.run("I always want charts drawn with plotly")
    assert extraction.started.wait(10)
    agent.abort()
    extraction.release.set()
    assert agent.wait_idle(timeout=10)
    assert store.global_memory.list() == [] and store.session_memory.list(agent.session.id) == []


def test_the_engine_stays_closed_for_other_users_while_the_export_copies(make_agent, tmp_path):
    seen: dict[str, Any] = {}
    engines: list[ProbeEngine] = []
    holder: dict[str, Any] = {}

    def during_close() -> None:          # e.g. %agent_sql or the Data tab while the file is copied
        seen["engine"] = holder["agent"].engine()
        seen["error"] = holder["agent"].engine_error

    def factory(session):
        engines.append(ProbeEngine(hook=during_close if not engines else None))
        return engines[-1]

    agent, _ = make_agent(ScriptedBackend(), engine_factory=factory)
    holder["agent"] = agent
    agent.export_session(tmp_path)
    assert seen["engine"] is None and "closed while the session is exported" in seen["error"]
    assert len(engines) == 2 and agent.engine() is engines[1] and agent.engine_error is None
    assert engines[0].waited_open      # background stores were finished before the file was copied


def test_a_failed_export_still_reopens_the_engine(make_agent, tmp_path):
    from shell_agent_lab.bundle import BundleExportError

    engines: list[ProbeEngine] = []

    def factory(session):
        engines.append(ProbeEngine())
        return engines[-1]

    agent, _ = make_agent(ScriptedBackend(["after"]), engine_factory=factory)
    with pytest.raises(BundleExportError, match="is not a directory"):
        agent.export_session(tmp_path / "missing" / "x.shellagent")
    assert engines[0].closed and agent.engine() is engines[-1] and not engines[-1].closed
    assert agent.run("still works").text == "after"
