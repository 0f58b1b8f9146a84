"""run_python: runs approved code in the namespace, captures and caps output, or hands it over as a cell."""
from __future__ import annotations

import io
import stat
import sys
import threading
from types import SimpleNamespace

import pytest
from traitlets import TraitError

from shell_agent_lab.config import ShellAgent
from shell_agent_lab.tools import run_python
from shell_agent_lab.tools.registry import ToolContext, ToolError
from shell_agent_lab.tools.run_python import ThreadRoutedStream, execute_code, run_python_tool


def test_descriptor_is_execute_and_asks_first():
    d = run_python_tool()
    assert d.category == "execute" and d.approval_default is True and d.dialog == "code"


def test_runs_in_the_namespace_and_shows_trailing_value():
    ns = {"x": 20}
    out, ok = execute_code("y = x * 2\nprint('hello')\ny + 1", ns)
    assert ok and ns["y"] == 40
    assert out.splitlines() == ["hello", "41"]


def test_exception_becomes_tool_error_with_traceback_tail(tmp_path):
    ctx = ToolContext("s", namespace={}, work_dir=tmp_path)
    with pytest.raises(ToolError, match="NameError"):
        run_python_tool().handler(ctx, {"code": "undefined_name + 1"})
    assert ctx.namespace["WORK_DIR"] == str(tmp_path)


def test_syntax_error_is_reported():
    out, ok = execute_code("def (", {})
    assert not ok and out.startswith("SyntaxError")


def test_output_is_capped():
    out, ok = execute_code("for i in range(10000): print('x' * 50)", {}, limit=2000)
    assert ok and len(out) < 2200 and "output truncated" in out


def test_insert_cell_choice_runs_nothing():
    ns = {}
    ctx = ToolContext("s", namespace=ns, decision=SimpleNamespace(approved=True, action="insert_cell"))
    result = run_python_tool().handler(ctx, {"code": "boom = 1"})
    assert "boom" not in ns
    assert result.data["insert_cell"] == "boom = 1"
    assert "has not been executed" in result.content


def test_needs_a_namespace_and_code():
    with pytest.raises(ToolError, match="no notebook namespace"):
        run_python_tool().handler(ToolContext("s"), {"code": "1"})
    with pytest.raises(ToolError, match="non-empty"):
        run_python_tool().handler(ToolContext("s", namespace={}), {"code": "  "})


# ---- the work directory ------------------------------------------------------------------------

def test_work_dir_is_created_private_and_writable(tmp_path):
    work = tmp_path / "sessions" / "s1" / "work"
    ns: dict = {}
    result = run_python_tool().handler(ToolContext("s1", namespace=ns, work_dir=work), {
        "code": "import pathlib\npathlib.Path(WORK_DIR, 'out.txt').write_text('hi')\nWORK_DIR"})
    assert (work / "out.txt").read_text() == "hi"
    assert stat.S_IMODE(work.stat().st_mode) == 0o700
    assert result.content == str(work)


def test_work_dir_follows_the_current_session(tmp_path):
    ns: dict = {}
    tool = run_python_tool()
    tool.handler(ToolContext("s1", namespace=ns, work_dir=tmp_path / "s1" / "work"), {"code": "a = WORK_DIR"})
    tool.handler(ToolContext("s2", namespace=ns, work_dir=tmp_path / "s2" / "work"), {"code": "b = WORK_DIR"})
    assert ns["a"] == str(tmp_path / "s1" / "work")
    assert ns["b"] == ns["WORK_DIR"] == str(tmp_path / "s2" / "work")
    assert (tmp_path / "s2" / "work").is_dir()


def test_work_dir_that_cannot_be_created_is_one_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(ToolError, match="cannot create the session's work directory"):
        run_python_tool().handler(ToolContext("s", namespace={}, work_dir=blocker / "work"), {"code": "1"})


def test_ipython_underscore_is_left_alone():
    ns = {"_": "the user's last result"}
    out, ok = execute_code("6 * 7", ns)
    assert ok and out == "42"
    assert ns["_"] == "the user's last result"


# ---- output capture is per thread --------------------------------------------------------------

def test_output_of_other_threads_is_not_captured_and_agent_output_does_not_leak(capsys):
    ready, go = threading.Event(), threading.Event()
    ns = {"ready": ready, "go": go}
    box: dict = {}
    worker = threading.Thread(target=lambda: box.update(result=execute_code(
        "print('agent one')\nimport sys\nsys.stderr.write('agent err\\n')\nready.set()\ngo.wait(30)\n"
        "print('agent two')", ns)))
    worker.start()
    assert ready.wait(30)
    print("from the cell")                      # the main thread, while the agent's code runs
    sys.stderr.write("cell err\n")
    go.set()
    worker.join(30)
    out, ok = box["result"]
    assert ok
    assert out.splitlines() == ["agent one", "agent err", "agent two"]
    seen = capsys.readouterr()
    assert "from the cell" in seen.out and "agent" not in seen.out
    assert "cell err" in seen.err and "agent" not in seen.err


def test_routing_wrapper_passes_other_attributes_through():
    run_python.execute_code("1", {})
    assert isinstance(sys.stdout, ThreadRoutedStream)
    inner = sys.stdout.wrapped
    assert sys.stdout.writable() == inner.writable()
    assert getattr(sys.stdout, "encoding", None) == getattr(inner, "encoding", None)


def test_a_replaced_stdout_is_wrapped_again():
    sink = io.StringIO()
    old = sys.stdout
    sys.stdout = sink
    try:
        out, ok = execute_code("print('captured')", {})
        assert isinstance(sys.stdout, ThreadRoutedStream) and sys.stdout.wrapped is sink
        print("not captured")
    finally:
        sys.stdout = old
    assert ok and out == "captured"
    assert sink.getvalue() == "not captured\n"


# ---- time limit and Stop -----------------------------------------------------------------------

LOOP = ("import time\nstate['started'] = True\nstarted.set()\ntry:\n    while True:\n"
        "        state['spins'] += 1\n        time.sleep(0.01)\nexcept KeyboardInterrupt:\n"
        "    state['interrupted'] = True\n    raise\n")


def _loop_namespace():
    return {"state": {"spins": 0}, "started": threading.Event()}


def test_code_running_past_the_time_limit_is_interrupted():
    ns = _loop_namespace()
    settings = ShellAgent(run_python_timeout=0.3)
    with pytest.raises(ToolError) as info:
        run_python_tool().handler(ToolContext("s", namespace=ns, settings=settings), {"code": LOOP})
    message = str(info.value)
    assert "0.3 s limit" in message and "run_python_timeout" in message and "KeyboardInterrupt" in message
    assert ns["state"]["interrupted"] is True
    assert not run_python.running()
    out, ok = execute_code("1 + 1", ns)       # the kernel is usable again
    assert ok and out == "2"


def test_stop_interrupts_running_code():
    ns = _loop_namespace()
    cancel = threading.Event()
    box: dict = {}

    def run():
        try:
            run_python_tool().handler(ToolContext("s", namespace=ns, cancel=cancel,
                                                  settings=ShellAgent(run_python_timeout=None)), {"code": LOOP})
        except ToolError as exc:
            box["error"] = str(exc)

    worker = threading.Thread(target=run)
    worker.start()
    assert ns["started"].wait(30)
    cancel.set()
    worker.join(30)
    assert not worker.is_alive()
    assert "the user stopped it" in box["error"]
    assert ns["state"]["interrupted"] is True


def test_code_stuck_in_a_blocking_call_is_left_behind_and_reported(monkeypatch):
    monkeypatch.setattr(run_python, "STOP_GRACE", 0.2)
    release = threading.Event()
    ns = {"started": threading.Event(), "release": release, "state": {}}
    code = "started.set()\nrelease.wait()\nstate['after'] = True"   # Event.wait blocks in C
    with pytest.raises(ToolError, match="did not stop") as info:
        run_python_tool().handler(ToolContext("s", namespace=ns, settings=ShellAgent(run_python_timeout=0.2)),
                                  {"code": code})
    assert "keeps running in the kernel" in str(info.value)
    assert run_python.running()
    out, ok = execute_code("1", {})
    assert not ok and "did not stop when interrupted" in out
    release.set()                       # the blocking call returns; the pending interrupt ends it
    for _ in range(600):
        if not run_python.running():
            break
        threading.Event().wait(0.05)
    assert not run_python.running()
    assert "after" not in ns["state"]
    assert execute_code("2", {}) == ("2", True)


def test_timeout_setting_is_validated():
    with pytest.raises(TraitError, match="run_python_timeout"):
        ShellAgent(run_python_timeout=-1)
    assert ShellAgent().run_python_timeout == run_python.DEFAULT_TIMEOUT


def test_a_write_patch_like_ipythons_history_tee_stays_with_other_threads():
    """IPython replaces ``sys.stdout.write`` for each cell; that must neither loop back through
    the wrapper nor see the agent's output."""
    execute_code("1", {})                               # the wrapper is in place
    stream = sys.stdout
    seen: list[str] = []
    original_write = stream.write

    def tee(data):
        seen.append(data)
        return original_write(data)

    stream.write = tee
    try:
        out, ok = execute_code("print('agent line')", {})
        print("cell line")
    finally:
        stream.write = original_write
    assert ok and out == "agent line"
    assert "".join(seen) == "cell line\n"
    print("after the cell")                             # the patch is gone
    assert "".join(seen) == "cell line\n"


def test_errors_quote_the_agents_code_without_the_runners_frames():
    out, ok = execute_code("def f(x):\n    return 1 / x\nf(0)", {})
    assert not ok
    assert "run_python.py" not in out
    assert 'File "<agent-code>", line 2, in f' in out and "return 1 / x" in out
    assert out.endswith("ZeroDivisionError: division by zero")


_TRACED_AFTER_RUNS = """
import sys
from shell_agent_lab.tools.run_python import run_code
print(run_code("x = 1", {}).ok)
print(run_code("while True: pass", {}, timeout=0.3, grace=2).interrupted)
print(run_code("import time\\nfor _ in range(20): time.sleep(0.01)", {}, timeout=0.1, grace=2).interrupted)

def tracer(frame, event, arg):
    return tracer

sys.settrace(tracer)
exec(compile("def f():\\n    return 2\\ny = f()", "<traced>", "exec"), {})
sys.settrace(None)
print("traced ran")
"""


def test_after_runs_and_interrupts_a_traced_frame_still_runs():
    """An interrupt is never taken back with PyThreadState_SetAsyncExc(id, NULL): on CPython 3.11
    that leaves an asynchronous exception flagged for the whole interpreter, and every traced
    frame afterwards (a debugger, the in-kernel program runner) loops forever at its start.
    In a fresh interpreter, with a time limit: a hang fails instead of stalling the suite."""
    import subprocess
    done = subprocess.run([sys.executable, "-c", _TRACED_AFTER_RUNS], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "timeout", "timeout", "traced", "ran"]
