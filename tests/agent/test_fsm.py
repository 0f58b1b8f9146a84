"""State machine invariants: Ready / Busy / Extracting / Queued, driven deterministically with
threading.Events held inside the scripted model and the extractor (no sleeps)."""
from __future__ import annotations

import threading

import pytest

from shell_agent_lab.agent import AgentState
from shell_agent_lab.llm.scripted import ScriptedBackend

READY, BUSY, EXTRACTING, QUEUED = (s.value for s in AgentState)
_ALLOWED = {(READY, BUSY), (BUSY, READY), (BUSY, EXTRACTING), (EXTRACTING, READY), (EXTRACTING, QUEUED),
            (QUEUED, BUSY), (QUEUED, READY)}


def held(text: str, started: threading.Event, release: threading.Event):
    """A scripted answer that signals it started and waits to be released."""
    def answer(messages, tools):
        started.set()
        assert release.wait(10), "test never released the model"
        return text
    return answer


class HeldExtractor:
    def __init__(self, fail: bool = False) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.calls = 0
        self.fail = fail

    def __call__(self, session, backend, cancel):
        self.calls += 1
        self.started.set()
        assert self.release.wait(10), "test never released the extractor"
        if self.fail:
            raise RuntimeError("extraction broke")


def check_transitions(rec) -> None:
    changes = [(e.data["previous"], e.data["state"]) for e in rec.of("state_changed")]
    assert changes, "no state changes published"
    for pair in changes:
        assert pair in _ALLOWED, f"invalid transition {pair}; all: {changes}"
    for (_, after), (before, _) in zip(changes, changes[1:]):
        assert after == before, f"state events out of order: {changes}"


@pytest.fixture
def consistent(request):
    """Attach a listener that checks every state_changed matches agent.state at publish time."""
    mismatches: list[tuple[str, str]] = []

    def attach(agent):
        def on(event):
            now = agent.state.value
            if now != event.data["state"]:
                mismatches.append((event.data["state"], now))
        agent.events.subscribe(on, ["state_changed"])
        return mismatches
    return attach


def test_concurrent_sends_from_two_threads_one_runs_one_is_refused(make_agent, store, consistent):
    for round_ in range(10):
        started, release = threading.Event(), threading.Event()
        backend = ScriptedBackend([held("answer", started, release)])
        agent, rec = make_agent(backend, notebook=f"race-{round_}.ipynb")
        mismatches = consistent(agent)
        barrier = threading.Barrier(2)
        results: dict[str, object] = {}
        first_done = threading.Event()

        def send(name: str) -> None:
            barrier.wait()
            results[name] = agent.send(name)
            first_done.set()

        threads = [threading.Thread(target=send, args=(n,)) for n in ("left", "right")]
        for t in threads:
            t.start()
        assert started.wait(10)
        assert first_done.wait(10)
        # exactly one message got through; the other one was refused while Busy
        refused = [n for n in ("left", "right") if n in results]
        assert len(refused) == 1, f"round {round_}: {results}"
        assert results[refused[0]].phase == "error"
        assert "Still answering the previous message" in results[refused[0]].error_message
        assert agent.state == AgentState.BUSY
        release.set()
        for t in threads:
            t.join(10)
        phases = sorted(r.phase for r in results.values())
        assert phases == ["completed", "error"]
        users = [r.content for r in store.list_records(agent.session.id) if r.role == "user"]
        assert len(users) == 1 and users[0] in ("left", "right") and users[0] != refused[0]
        assert agent.state == AgentState.READY
        check_transitions(rec)
        assert mismatches == [] and agent._violations == []


def test_send_during_extraction_is_queued_most_recent_wins(make_agent, store, settings, consistent):
    settings.auto_extract = True
    extractor = HeldExtractor()
    backend = ScriptedBackend(["first answer", "second answer"])
    agent, rec = make_agent(backend, extractor=extractor)
    mismatches = consistent(agent)
    assert agent.run("one").text == "first answer"
    assert extractor.started.wait(10)
    assert agent.state == AgentState.EXTRACTING
    waiter: dict[str, object] = {}
    t = threading.Thread(target=lambda: waiter.setdefault("two", agent.run("two")))
    t.start()
    rec.wait_for("queued", lambda e: e.data["message"] == "two")
    assert agent.state == AgentState.QUEUED
    third = agent.send("three")
    assert third.phase == "queued" and third.queued_at is not None
    assert agent.state == AgentState.QUEUED
    t.join(10)
    assert waiter["two"].error == "Replaced by a newer message before it was sent."
    assert backend.pending == 1            # nothing was sent while extracting
    extractor.release.set()
    assert agent.wait_idle(timeout=10)
    dispatched = rec.of("queue_dispatched")[0].data
    assert dispatched == {"message": "three", "turn_id": third.turn_id}
    assert rec.of("turn_finished")[-1].data["turn_id"] == third.turn_id
    users = [r.content for r in store.list_records(agent.session.id) if r.role == "user"]
    assert users == ["one", "three"]
    assert [r.content for r in store.list_records(agent.session.id) if r.role == "assistant"] == \
        ["first answer", "second answer"]
    assert extractor.calls == 2            # the dispatched turn is extracted too
    assert agent.state == AgentState.READY
    check_transitions(rec)
    states = [e.data["state"] for e in rec.of("state_changed")]
    assert states == [BUSY, EXTRACTING, QUEUED, BUSY, EXTRACTING, READY]
    assert mismatches == [] and agent._violations == []


def test_failed_extraction_still_dispatches_the_queue(make_agent, store, settings):
    settings.auto_extract = True
    extractor = HeldExtractor(fail=True)
    backend = ScriptedBackend(["a1", "a2"])
    agent, rec = make_agent(backend, extractor=extractor)
    agent.run("one")
    assert extractor.started.wait(10)
    assert agent.send("two").phase == "queued"
    extractor.release.set()
    assert agent.wait_idle(timeout=10)
    done = rec.of("extraction_done")
    assert done[0].data["success"] is False and "extraction broke" in done[0].data["error"]
    assert [r.content for r in store.list_records(agent.session.id) if r.role == "user"] == ["one", "two"]
    assert agent.state == AgentState.READY
    check_transitions(rec)


def test_abort_clears_the_queue_and_releases_extraction(make_agent, store, settings):
    settings.auto_extract = True
    extractor = HeldExtractor()
    agent, rec = make_agent(ScriptedBackend(["a1", "never sent"]), extractor=extractor)
    agent.run("one")
    assert extractor.started.wait(10)
    out: dict[str, object] = {}
    t = threading.Thread(target=lambda: out.setdefault("r", agent.run("two")))
    t.start()
    rec.wait_for("queued")
    agent.abort()
    t.join(10)
    assert out["r"].error == "Cancelled before it was sent."
    assert agent.state == AgentState.READY
    assert rec.of("queue_cleared")
    # a send now starts immediately even though the old extraction is still running
    extractor.release.set()
    assert agent.wait_idle(timeout=10)
    assert agent.state == AgentState.READY     # the finished extraction did not flip anything
    assert [r.content for r in store.list_records(agent.session.id) if r.role == "user"] == ["one"]
    check_transitions(rec)


def test_abort_cancels_a_running_turn(make_agent, store, settings):
    settings.auto_extract = True
    extractor = HeldExtractor()
    started, release = threading.Event(), threading.Event()
    agent, rec = make_agent(ScriptedBackend([held("late answer", started, release)]), extractor=extractor)
    out: dict[str, object] = {}
    t = threading.Thread(target=lambda: out.setdefault("r", agent.run("long question")))
    t.start()
    assert started.wait(10)
    assert agent.send("impatient").phase == "error"
    agent.abort()
    release.set()
    t.join(10)
    assert out["r"].text == "(Cancelled)" and out["r"].error is None
    assert agent.wait_idle(timeout=10)
    assert extractor.calls == 0                 # a cancelled turn is not extracted
    assert [r.role for r in store.list_records(agent.session.id)] == ["user"]
    check_transitions(rec)


def test_send_wait_false_returns_started_and_events_follow(make_agent):
    started, release = threading.Event(), threading.Event()
    agent, rec = make_agent(ScriptedBackend([held("ok", started, release)]))
    result = agent.send("hello", wait=False)
    assert result.phase == "started" and result.turn_id
    assert started.wait(10)
    release.set()
    done = rec.wait_for("turn_finished", lambda e: e.data["turn_id"] == result.turn_id)
    assert done.data["text"] == "ok" and done.data["phase"] == "completed"
    assert agent.wait_idle(timeout=10)


def test_background_panic_is_recovered_and_flags_cleared(make_agent, settings):
    settings.auto_extract = True

    def explode(session, backend, cancel):
        raise SystemExit("boom")          # even BaseException must not leave EXTRACTING behind

    agent, rec = make_agent(ScriptedBackend(["a"]), extractor=explode)
    agent.run("one")
    assert agent.wait_idle(timeout=10)
    assert agent.state == AgentState.READY
    assert rec.of("extraction_done")[0].data["success"] is False


def test_empty_message_is_refused(make_agent):
    agent, _ = make_agent()
    assert agent.send("   ").phase == "error"
    assert agent.run("").error.startswith("Nothing to send")


def test_cancellation_mid_stream(make_agent, store):
    backend = ScriptedBackend(["This answer streams in many small pieces and is stopped early."], chunk_size=4)
    agent, rec = make_agent(backend)
    agent.events.subscribe(lambda e: agent.abort() if len(rec.of("stream_token")) == 2 else None,
                           ["stream_token"])
    r = agent.run("tell me a long story")
    assert r.text == "(Cancelled)"
    assert len(rec.of("stream_token")) == 2
    assert [x.role for x in store.list_records(agent.session.id)] == ["user"]   # no partial answer stored
    assert agent.wait_idle(timeout=10) and agent.state == AgentState.READY


def test_run_timeout_leaves_the_turn_running(make_agent):
    started, release = threading.Event(), threading.Event()
    agent, rec = make_agent(ScriptedBackend([held("eventually", started, release)]))
    r = agent.run("slow", timeout=0.05)
    assert started.is_set() or started.wait(10)
    assert r.error.startswith("No answer within 0.05 s") and "/stop" in r.error
    assert agent.state == AgentState.BUSY
    release.set()
    rec.wait_for("turn_finished")
    assert agent.wait_idle(timeout=10)


def test_auto_extract_off_never_extracts(make_agent, settings):
    calls = []
    agent, rec = make_agent(ScriptedBackend(["a", "b"]), extractor=lambda s, b, c: calls.append(s))
    agent.run("one")
    agent.run("two")
    assert agent.wait_idle(timeout=10)
    assert calls == [] and not rec.of("extraction_started")
    assert EXTRACTING not in [e.data["state"] for e in rec.of("state_changed")]
    assert [e.data["state"] for e in rec.of("state_changed")] == [BUSY, READY, BUSY, READY]


def test_many_threads_sending_through_extraction_keep_every_invariant(make_agent, settings, store, consistent):
    settings.auto_extract = True
    agent, rec = make_agent(ScriptedBackend(fn=lambda messages, tools: "ok"),
                            extractor=lambda session, backend, cancel: None)
    mismatches = consistent(agent)
    seen_states: set[str] = set()
    stop = threading.Event()

    def poll() -> None:
        while not stop.is_set():
            seen_states.add(agent.state.value)

    results: list[str] = []
    lock = threading.Lock()

    def sender(n: int) -> None:
        for k in range(15):
            phase = agent.send(f"thread {n} message {k}").phase
            with lock:
                results.append(phase)

    poller = threading.Thread(target=poll)
    poller.start()
    senders = [threading.Thread(target=sender, args=(n,)) for n in range(4)]
    for t in senders:
        t.start()
    for t in senders:
        t.join(30)
    assert agent.wait_idle(timeout=30)
    stop.set()
    poller.join(10)
    assert set(results) <= {"completed", "queued", "error"} and "completed" in results
    assert seen_states <= {READY, BUSY, EXTRACTING, QUEUED}
    check_transitions(rec)
    assert mismatches == [] and agent._violations == []
    users = sum(1 for r in store.list_records(agent.session.id) if r.role == "user")
    answers = sum(1 for r in store.list_records(agent.session.id) if r.role == "assistant")
    dispatched = len(rec.of("queue_dispatched"))
    assert users == answers == results.count("completed") + dispatched
    assert agent.state == AgentState.READY
