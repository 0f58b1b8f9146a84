"""The shared llama.cpp server's pure parts: when it saves and stops, and its records on disk."""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import threading

import pytest

from shell_agent_lab.llm.llama_policy import (IdlePolicy, begin, observe, saved, should_save,
                                              should_stop)
from shell_agent_lab.llm.llama_state import (ModelSpec, ServerPaths, ServerState, exclusive,
                                             fingerprint, live_leases, pid_alive, process_start,
                                             read_state, remove_state, take_lease, write_state)

POLICY = IdlePolicy(idle_timeout=600, grace=60, poll=2, save_after=30)


def idle_slot(task=None):
    return [{"id": 0, "id_task": task, "is_processing": False}]


def busy_slot(task):
    return [{"id": 0, "id_task": task, "is_processing": True}]


def test_a_fresh_server_with_a_client_stays():
    watch = begin(0.0, idle_slot())
    assert not should_stop(watch, 1000.0, POLICY)  # its starter holds a lease
    watch = observe(watch, 1000.0, clients=1, slots=idle_slot())
    assert not should_stop(watch, 1000.0, POLICY) and not should_save(watch, 1000.0, POLICY)


def test_a_live_client_keeps_the_server_even_with_no_grace_and_no_idle_time():
    eager = IdlePolicy(idle_timeout=0, grace=0)
    watch = observe(begin(0.0, idle_slot()), 5.0, clients=1, slots=idle_slot())
    assert not should_stop(watch, 5.0, eager)
    assert should_stop(observe(watch, 6.0, clients=0, slots=idle_slot()), 6.0, eager)


def test_stops_only_after_both_the_grace_and_the_idle_timeout():
    watch = begin(0.0, idle_slot())
    watch = observe(watch, 10.0, clients=1, slots=idle_slot(5))  # a request ran before t=10
    watch = observe(watch, 20.0, clients=0, slots=idle_slot(5))  # the last client left after t=10
    assert not should_stop(watch, 69.0, POLICY)  # grace not over
    assert not should_stop(watch, 609.0, POLICY)  # idle timeout not over (request at 10)
    assert should_stop(watch, 610.0, POLICY)


def test_never_stops_while_a_request_is_in_flight():
    watch = begin(0.0, idle_slot())
    watch = observe(watch, 5000.0, clients=0, slots=busy_slot(7))
    assert not should_stop(watch, 5000.0, POLICY)
    # an unreadable /slots changes nothing: still busy
    watch = observe(watch, 9000.0, clients=0, slots=None)
    assert watch.busy and not should_stop(watch, 9000.0, POLICY)


def test_activity_is_a_new_task_or_a_processing_slot_not_a_save():
    watch = begin(0.0, idle_slot())
    assert not observe(watch, 1.0, clients=1, slots=idle_slot()).dirty
    moved = observe(watch, 1.0, clients=1, slots=idle_slot(3))
    assert moved.dirty and moved.last_activity == 1.0
    # the same task seen again is no new activity (slot saves leave id_task alone)
    again = observe(saved(moved), 50.0, clients=1, slots=idle_slot(3))
    assert not again.dirty and again.last_activity == 1.0


def test_saves_once_quiet_after_activity():
    watch = observe(begin(0.0, idle_slot()), 10.0, clients=1, slots=idle_slot(1))
    assert not should_save(watch, 39.0, POLICY)
    assert should_save(watch, 40.0, POLICY)
    assert not should_save(saved(watch), 100.0, POLICY)
    busy = observe(watch, 45.0, clients=1, slots=busy_slot(2))
    assert not should_save(busy, 1000.0, POLICY)


def test_without_a_first_look_the_first_poll_sets_the_baseline():
    watch = observe(begin(0.0), 1.0, clients=1, slots=idle_slot(4))
    assert not watch.dirty and watch.tasks == ((0, 4),)


def test_policy_from_env_and_as_daemon_arguments():
    policy = IdlePolicy.from_env({"SHELL_AGENT_LAB_LLAMA_IDLE_TIMEOUT": "30", "SHELL_AGENT_LAB_LLAMA_GRACE": " 5 "})
    assert (policy.idle_timeout, policy.grace, policy.poll) == (30.0, 5.0, 2.0)
    assert policy.to_args()[:4] == ["--idle-timeout", "30.0", "--grace", "5.0"]
    with pytest.raises(ValueError, match="SHELL_AGENT_LAB_LLAMA_IDLE_TIMEOUT='soon' is not a number"):
        IdlePolicy.from_env({"SHELL_AGENT_LAB_LLAMA_IDLE_TIMEOUT": "soon"})
    with pytest.raises(ValueError, match="poll must be positive"):
        IdlePolicy(poll=0)


# -- records -----------------------------------------------------------------------------------

def spec_for(tmp_path, content=b"GGUF" + b"x" * 100, n_ctx=512):
    path = tmp_path / "m.gguf"
    path.write_bytes(content)
    return ModelSpec.of_file(path, n_ctx=n_ctx)


def state_for(spec, **changes):
    state = ServerState(pid=1, token="t", status="ready", model=spec.path, fingerprint=spec.fingerprint,
                        n_ctx=spec.n_ctx, n_parallel=spec.n_parallel, version="1", engine="llama", port=1234)
    return dataclasses.replace(state, **changes)


def test_fingerprint_tells_files_apart_by_size_head_and_tail(tmp_path):
    big = b"GGUF" + bytes(3 * 1024 * 1024)
    (tmp_path / "a").write_bytes(big)
    (tmp_path / "b").write_bytes(big[:-1] + b"\1")  # differs only in the last byte
    (tmp_path / "c").write_bytes(big[:1536 * 1024] + b"\1" + big[1536 * 1024 + 1:])  # the middle
    (tmp_path / "d").write_bytes(big)
    a, b, c, d = (fingerprint(tmp_path / name) for name in "abcd")
    assert a != b and a == d
    assert a == c  # the middle is not read: cheap for a 1 GB model, and GGUF headers differ


def test_a_state_serves_only_the_same_model_context_engine_and_version(tmp_path):
    spec = spec_for(tmp_path)
    state = state_for(spec)
    assert state.serves(spec, "1", "llama") and state.url == "http://127.0.0.1:1234"
    assert not state.serves(spec, "2", "llama")
    assert not state.serves(spec, "1", "fake")
    assert not state.serves(dataclasses.replace(spec, n_ctx=1024), "1", "llama")
    assert not state_for(spec, fingerprint="0" * 64).serves(spec, "1", "llama")
    assert not state_for(spec, status="starting").serves(spec, "1", "llama")
    assert not state_for(spec, format=0).serves(spec, "1", "llama")


def test_state_file_round_trip_is_private_and_removal_checks_the_token(tmp_path):
    spec = spec_for(tmp_path)
    paths = ServerPaths(tmp_path / "models", spec.key)
    paths.dir.mkdir(parents=True)
    write_state(paths.state, state_for(spec))
    assert read_state(paths.state) == state_for(spec)
    assert oct(paths.state.stat().st_mode & 0o777) == "0o600"
    assert not remove_state(paths.state, "other") and paths.state.exists()
    assert remove_state(paths.state, "t") and not paths.state.exists()
    paths.state.write_text("{not json")
    assert read_state(paths.state) is None
    assert paths.key == f"{spec.fingerprint[:16]}-ctx512-par1"
    assert paths.kv_dir == tmp_path / "models" / "kv" and paths.kv_name == f"{spec.key}.slot"


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_leases_of_dead_or_reused_pids_are_dropped(tmp_path):
    clients = tmp_path / "clients"
    take_lease(clients)
    gone = dead_pid()
    (clients / str(gone)).write_text("")
    (clients / "1").write_text("not-its-start-time")  # pid 1 runs, but started at another time
    assert live_leases(clients) == [os.getpid()]
    assert sorted(p.name for p in clients.iterdir()) == [str(os.getpid())]


def test_pid_alive_checks_the_start_time():
    assert pid_alive(os.getpid(), process_start(os.getpid()))
    assert not pid_alive(os.getpid(), "0")
    assert not pid_alive(dead_pid())
    assert not pid_alive(0)


def test_the_lock_is_exclusive_across_processes(tmp_path):
    lock = tmp_path / "servers.lock"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, sys, time\n"
        f"f = open({str(lock)!r}, 'w'); fcntl.flock(f, fcntl.LOCK_EX)\n"
        "print('held', flush=True); sys.stdin.readline()\n")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        ticks = []
        with pytest.raises(TimeoutError, match="stayed locked"):
            with exclusive(lock, 1.0, sleep=lambda s: ticks.append(s), clock=lambda: len(ticks) * 0.5):
                pass
        assert ticks  # it waited by polling
    finally:
        holder.communicate("\n", timeout=30)
    done = threading.Event()
    with exclusive(lock, 5.0):
        done.set()
    assert done.is_set()


def test_the_server_keeps_a_bounded_prompt_cache_and_listens_on_loopback(tmp_path):
    xllamacpp = pytest.importorskip("xllamacpp")
    from shell_agent_lab.llm.llama_engine import CACHE_RAM_MIB, EngineConfig, llama_params
    params = llama_params(EngineConfig(model=tmp_path / "m.gguf", n_ctx=4096, n_parallel=1, n_threads=2,
                                       slot_dir=tmp_path / "kv"), xllamacpp)
    assert params.cache_ram_mib == CACHE_RAM_MIB <= 512
    assert params.hostnames == ["127.0.0.1"] and params.cache_prompt and params.n_ctx == 4096


def test_llama_threads_wait_briefly_at_barriers_unless_the_environment_says_otherwise():
    from shell_agent_lab.llm.llama_engine import BARRIER_SPIN, prepare_threads

    env: dict[str, str] = {}
    assert prepare_threads(env) and env == {"GOMP_SPINCOUNT": str(BARRIER_SPIN)}
    assert 0 < BARRIER_SPIN < 300_000                      # below GOMP's default, above none
    for given in ({"GOMP_SPINCOUNT": "500"}, {"OMP_WAIT_POLICY": "active"}):
        env = dict(given)
        assert not prepare_threads(env) and env == given    # a setting of the user's is kept


def test_llama_threads_follow_the_cores_this_process_may_use(monkeypatch, tmp_path):
    import os

    from shell_agent_lab.llm import llama_engine
    from shell_agent_lab.llm.llama_client import LlamaServer

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    quota = llama_engine._quota_cores
    monkeypatch.setattr(llama_engine, "_quota_cores", lambda *a: None)
    assert llama_engine.default_threads() == 2
    assert LlamaServer("m.gguf").n_threads == 2
    monkeypatch.setattr(llama_engine, "_quota_cores", quota)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    assert llama_engine.default_threads(tmp_path / "none") == llama_engine.MAX_THREADS
    (tmp_path / "cpu.max").write_text("150000 100000\n")           # a container given 1.5 CPUs
    assert llama_engine.default_threads(tmp_path / "cpu.max") == 2
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert llama_engine.default_threads(tmp_path / "cpu.max") == llama_engine.MAX_THREADS
