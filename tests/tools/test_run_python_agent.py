"""run_python through the real agent: Stop interrupts approved code, WORK_DIR follows /reset."""
from __future__ import annotations

import stat
import threading

import pytest

from shell_agent_lab.agent import Agent
from shell_agent_lab.agent.factory import default_registry
from shell_agent_lab.config import ShellAgent
from shell_agent_lab.events import EventBus
from shell_agent_lab.llm.scripted import ScriptedBackend, call, reply
from shell_agent_lab.store import Store
from shell_agent_lab.tools import run_python
from shell_agent_lab.tools.approval import ApprovalDecision
from shell_agent_lab.tools.extensions import install_extensions


@pytest.fixture
def store(tmp_path):
    s = Store.open(tmp_path / "data")
    yield s
    s.close()


@pytest.fixture
def make(store):
    made: list[Agent] = []

    def build(backend, namespace, **settings_kw):
        settings = ShellAgent(auto_extract=False, auto_title=False, **settings_kw)
        registry = default_registry()
        ext = install_extensions(registry, settings, data_dir=store.data_dir)
        agent = Agent(store=store, backend=backend, registry=registry, events=EventBus(), settings=settings,
                      approver=lambda r: ApprovalDecision(approved=True), namespace=lambda: namespace)
        agent.extensions = ext
        agent.open_session(None, notebook_path="t.ipynb")
        made.append(agent)
        return agent

    yield build
    for agent in made:
        agent.abort()
        agent.wait_idle(timeout=10)
        agent.extensions.close()


def test_stop_interrupts_approved_code_and_ends_the_turn(make):
    started = threading.Event()
    ns = {"started": started, "state": {}}
    code = ("import time\nstarted.set()\ntry:\n    while True:\n        time.sleep(0.01)\n"
            "except KeyboardInterrupt:\n    state['interrupted'] = True\n    raise\n")
    backend = ScriptedBackend([call("run_python", {"code": code}), reply("never reached")])
    agent = make(backend, ns, run_python_timeout=None)
    box: dict = {}
    turn = threading.Thread(target=lambda: box.update(reply=agent.run("loop forever", timeout=60)))
    turn.start()
    assert started.wait(30)
    agent.abort()
    turn.join(30)
    assert not turn.is_alive()
    assert ns["state"].get("interrupted") is True
    assert agent.wait_idle(timeout=30)
    assert not run_python.running()
    assert len(backend.requests) == 1           # the cancelled turn did not go on to the model


def test_work_dir_follows_a_new_session(make, store):
    ns: dict = {}
    code = "import pathlib\npathlib.Path(WORK_DIR, 'note.txt').write_text('x')\nWORK_DIR"
    backend = ScriptedBackend([call("run_python", {"code": code}), reply("one"),
                               call("run_python", {"code": code}), reply("two")])
    agent = make(backend, ns)
    first = agent.session.id
    assert agent.run("write a note", timeout=30).text == "one"
    first_dir = store.session_dir(first) / "work"
    assert ns["WORK_DIR"] == str(first_dir) and (first_dir / "note.txt").exists()
    assert stat.S_IMODE(first_dir.stat().st_mode) == 0o700
    agent.new_session()                         # /reset
    second = agent.session.id
    assert second != first
    assert agent.run("write another", timeout=30).text == "two"
    second_dir = store.session_dir(second) / "work"
    assert ns["WORK_DIR"] == str(second_dir) and (second_dir / "note.txt").exists()
