"""The shared server across real OS processes, with the stand-in engine (no model needed).

Each client is a separate Python process that builds a ``LocalBackend(engine="fake")`` on the
test's data directory and runs a list of steps; the stand-in server's replies name its pid
(``pid=<pid> cached=<n>``), so "one server" is checked by pid. Waits are bounded polls.
"""
from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from shell_agent_lab import __version__
from shell_agent_lab.llm.errors import UnreachableError
from shell_agent_lab.llm.llama_client import LlamaServer, shutdown_servers, stop_all_servers
from shell_agent_lab.llm.llama_http import UrllibHttp
from shell_agent_lab.llm.llama_policy import IdlePolicy
from shell_agent_lab.llm.llama_state import (ModelSpec, ServerPaths, ServerState, pid_alive, read_state,
                                             write_state)
from shell_agent_lab.llm.local import LocalBackend
from shell_agent_lab.llm.types import Message

#: tiny times so an idle server stops within a test; a live lease always keeps it
POLICY = IdlePolicy(idle_timeout=0.2, grace=0.1, poll=0.05, save_after=0.2, drain_timeout=60)
N_CTX = 512

CLIENT = r"""
import json, os, sys, time
from pathlib import Path
from shell_agent_lab.llm.llama_client import stop_all_servers
from shell_agent_lab.llm.llama_policy import IdlePolicy
from shell_agent_lab.llm.local import LocalBackend
from shell_agent_lab.llm.types import Message

model, policy, steps = sys.argv[1], IdlePolicy(**json.loads(sys.argv[2])), json.loads(sys.argv[3])
backend = LocalBackend(model, n_ctx=%d, engine="fake", policy=policy)

def wait(path):
    deadline = time.monotonic() + 60
    while not Path(path).exists():
        if time.monotonic() > deadline:
            sys.exit("gave up waiting for " + path)
        time.sleep(0.01)

for step in steps:
    verb, _, arg = step.partition(":")
    if verb == "chat":
        reply = backend.chat([Message("system", "static prefix " * 20), Message("user", arg or "hi")])
        print(json.dumps({"text": reply.text, "pid": backend.server.pid}), flush=True)
    elif verb == "wait":
        wait(arg)
    elif verb == "mark":
        Path(arg).touch()
    elif verb == "drop":
        stop_all_servers()
""" % N_CTX


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF" + bytes(range(256)) * 4)
    return path


@pytest.fixture
def models_dir(_isolated_data_dir):
    root = _isolated_data_dir / "models"
    yield root
    stop_all_servers()
    assert shutdown_servers(root, timeout=30), "a shared server did not stop"


def paths_for(model, models_dir) -> ServerPaths:
    return ServerPaths(models_dir, ModelSpec.of_file(model, n_ctx=N_CTX).key)


def client(model, *steps, policy: IdlePolicy = POLICY) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", CLIENT, str(model),
                             json.dumps(dataclasses.asdict(policy)),
                             json.dumps(list(steps))], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def replies(proc) -> list[dict]:
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return [json.loads(line) for line in out.splitlines()]


def wait_until(predicate, what: str, limit: float = 30.0) -> None:
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting until {what}")
        time.sleep(0.02)


def starts(paths) -> int:
    return paths.log.read_text().count(" starting fake engine")


def backend(model) -> LocalBackend:
    return LocalBackend(model, n_ctx=N_CTX, engine="fake", policy=POLICY)


def ask(b: LocalBackend, text: str = "hi") -> int:
    reply = b.chat([Message("system", "static prefix " * 20), Message("user", text)])
    return int(reply.text.split()[0].removeprefix("pid="))


def test_a_second_process_reuses_the_first_ones_server(model, models_dir, tmp_path):
    first = client(model, "chat", f"mark:{tmp_path / 'asked'}", f"wait:{tmp_path / 'release'}")
    paths = paths_for(model, models_dir)
    try:
        wait_until((tmp_path / "asked").exists, "the first client has its answer")
        second = replies(client(model, "chat"))
        recorded = read_state(paths.state).pid
    finally:
        (tmp_path / "release").touch()
    (one,) = replies(first)
    assert one["pid"] == second[0]["pid"] == recorded
    assert one["text"].startswith(f"pid={one['pid']} ")
    assert starts(paths) == 1
    assert oct(paths.log.stat().st_mode & 0o777) == "0o600"


def test_two_processes_starting_at_once_get_one_server(model, models_dir, tmp_path):
    go = tmp_path / "go"
    procs = [client(model, f"wait:{go}", "chat") for _ in range(2)]
    go.touch()
    pids = {replies(proc)[0]["pid"] for proc in procs}
    assert len(pids) == 1
    assert starts(paths_for(model, models_dir)) == 1


def test_a_state_file_with_a_dead_pid_is_replaced(model, models_dir):
    paths = paths_for(model, models_dir)
    paths.dir.mkdir(parents=True)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    spec = ModelSpec.of_file(model, n_ctx=N_CTX)
    write_state(paths.state, ServerState(pid=gone.pid, token="old", status="ready", model=spec.path,
                                         fingerprint=spec.fingerprint, n_ctx=N_CTX, n_parallel=1,
                                         version=__version__, engine="fake", port=9))
    pid = ask(backend(model))
    assert pid != gone.pid and read_state(paths.state).pid == pid and read_state(paths.state).token != "old"


def test_a_running_server_recorded_for_another_model_is_replaced_and_told_to_stop(model, models_dir):
    old = ask(backend(model))
    paths = paths_for(model, models_dir)
    write_state(paths.state, dataclasses.replace(read_state(paths.state), fingerprint="0" * 64))
    other = LlamaServer(model, n_ctx=N_CTX, engine="fake", policy=POLICY, models_dir=models_dir)
    try:
        other.start()
        assert other.pid != old and read_state(paths.state).pid == other.pid
        wait_until(lambda: not pid_alive(old), "the replaced server exits")
    finally:
        other.stop()


def test_a_server_killed_between_requests_is_started_again(model, models_dir):
    b = backend(model)
    first = ask(b)
    os.kill(first, signal.SIGKILL)
    wait_until(lambda: not pid_alive(first), "the killed server is gone")
    second = ask(b)
    assert second != first and b.server.pid == second


def test_an_idle_server_stops_after_its_last_client_exits(model, models_dir):
    (one,) = replies(client(model, "chat"))
    paths = paths_for(model, models_dir)
    wait_until(lambda: not pid_alive(one["pid"]), "the idle server stops")
    assert not paths.state.exists()
    assert (paths.kv_dir / paths.kv_name).is_file()  # slot 0 saved before it stopped
    log = paths.log.read_text()
    assert "idle: no client" in log and log.rstrip().endswith("stopped")
    assert "static prefix" not in log  # no conversation bodies in the log


def test_a_live_client_keeps_the_server_when_another_drops_its_lease(model, models_dir, tmp_path):
    # no grace, no idle time: the server stops at the first poll that finds no live lease
    eager = IdlePolicy(idle_timeout=0, grace=0, poll=0.05, save_after=0, drain_timeout=60)
    marks = {name: tmp_path / name for name in ("a", "b", "dropped", "again", "end")}
    first = client(model, "chat", f"mark:{marks['a']}", f"wait:{marks['b']}", "drop",
                   f"mark:{marks['dropped']}", f"wait:{marks['end']}", policy=eager)
    second = client(model, f"wait:{marks['a']}", "chat", f"mark:{marks['b']}", f"wait:{marks['again']}",
                    "chat:again", policy=eager)
    paths = paths_for(model, models_dir)
    try:
        wait_until(marks["dropped"].exists, "the first client dropped its lease")
        assert not (paths.clients / str(first.pid)).exists() and first.poll() is None

        def clients_seen() -> str:
            return [line for line in paths.log.read_text().splitlines() if " clients: " in line][-1]

        # the daemon has polled since the drop: at that poll only the second lease was live
        wait_until(lambda: clients_seen().endswith(f"clients: {second.pid}"), "the daemon sees one client")
    finally:
        marks["again"].touch()
        marks["end"].touch()
    (one,) = replies(first)
    two, three = replies(second)
    assert one["pid"] == two["pid"] == three["pid"]
    wait_until(lambda: not pid_alive(one["pid"]), "the server stops once both clients are gone")


def test_sigterm_lets_the_request_in_flight_finish(model, models_dir, tmp_path):
    b = backend(model)
    server = ask(b)
    paths = paths_for(model, models_dir)
    url = read_state(paths.state).url
    hold = tmp_path / "hold"
    hold.touch()
    busy = client(model, f"chat:hold:{hold}")
    http = UrllibHttp()
    wait_until(lambda: http.get(f"{url}/slots", timeout=5)[0]["is_processing"], "the request is in flight")
    os.kill(server, signal.SIGTERM)
    wait_until(lambda: not paths.state.exists(), "the server withdraws its record")
    assert pid_alive(server)  # draining: the request still runs
    hold.unlink()
    (reply,) = replies(busy)
    assert reply["pid"] == server
    wait_until(lambda: not pid_alive(server), "the server exits after the request")
    assert "asked to stop" in paths.log.read_text()
    assert (paths.kv_dir / paths.kv_name).is_file()


def test_the_next_server_restores_the_saved_slot(model, models_dir):
    b = backend(model)
    ask(b, "first question")
    assert b.server.shutdown(timeout=30)
    reply = b.chat([Message("system", "static prefix " * 20), Message("user", "second question")])
    cached = int(reply.text.split("cached=")[1])
    assert cached >= len("<system>" + "static prefix " * 20)  # the static prefix came from the file
    assert "restored slot 0" in paths_for(model, models_dir).log.read_text()


def test_a_server_that_cannot_start_is_one_line_with_its_log(tmp_path, models_dir):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a model")
    with pytest.raises(UnreachableError) as caught:
        backend(bad).chat([Message("user", "hi")])
    text = str(caught.value)
    paths = paths_for(bad, models_dir)
    assert "\n" not in text
    assert "could not start: bad.gguf is not a GGUF model" in text and str(paths.log) in text
    assert not pid_alive(read_state(paths.state).pid)


def test_a_launcher_whose_server_dies_at_once_is_reported(model, models_dir):
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    seen = []

    def spawn(argv, log, env):
        seen.append(argv)
        return gone.pid

    server = LlamaServer(model, n_ctx=N_CTX, engine="fake", policy=POLICY, models_dir=models_dir, spawn=spawn)
    with pytest.raises(UnreachableError, match=r"could not start: it exited while starting .*server\.log"):
        server.start()
    (argv,) = seen
    assert argv[1:4] == ["-m", "shell_agent_lab.llm.llama_daemon", "--detach"]
    assert argv[argv.index("--engine") + 1] == "fake" and argv[argv.index("--n-ctx") + 1] == str(N_CTX)
