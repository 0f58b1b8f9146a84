"""run_python through the real agent: Stop interrupts approved code, WORK_DIR follows /reset."""
from __future__ import annotations

import stat
import threading


from shell_agent_lab.config import ShellAgent
from shell_agent_lab.llm.scripted import ScriptedBackend, call, reply
from shell_agent_lab.tools import run_python
from tests.support.extension_agents import approve_all


def _agent(agents, backend, namespace, **settings_kw):
    return agents(settings=ShellAgent(auto_extract=False, auto_title=False, **settings_kw), backend=backend,
                  approver=approve_all, namespace=namespace)


def test_stop_interrupts_approved_code_and_ends_the_turn(agents):
    started = threading.Event()
    ns = {"started": started, "state": {}}
    code = ("import time\nstarted.set()\ntry:\n    while True:\n        time.sleep(0.01)\n"
            "except KeyboardInterrupt:\n    state['interrupted'] = True\n    raise\n")
    backend = ScriptedBackend([call("run_python", {"code": code}), reply("never reached")])
    agent = _agent(agents, backend, ns, run_python_timeout=None)
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


def test_work_dir_follows_a_new_session(agents, store):
    ns: dict = {}
    code = "import pathlib\npathlib.Path(WORK_DIR, 'note.txt').write_text('x')\nWORK_DIR"
    backend = ScriptedBackend([call("run_python", {"code": code}), reply("one"),
                               call("run_python", {"code": code}), reply("two")])
    agent = _agent(agents, backend, ns)
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
