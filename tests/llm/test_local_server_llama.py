"""The shared server with a real model (SmolLM2): two processes, one llama.cpp server, real
completions; stopped, it saves slot 0, and the next server restores it so the static prefix is
not computed again."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from shell_agent_lab.llm.llama_client import LlamaServer, shutdown_servers, stop_all_servers
from shell_agent_lab.llm.llama_http import UrllibHttp
from shell_agent_lab.llm.llama_state import ModelSpec, ServerPaths, pid_alive, read_state
from test_local_model import smollm_path

N_CTX = 1024
SYSTEM = ("You answer questions about a DuckDB database by calling the run_sql tool with one SQL "
          "query. Quote identifiers, prefer exact numbers, and never invent a column. ") * 6

CLIENT = r"""
import json, sys, time
from pathlib import Path
from shell_agent_lab.llm.local import LocalBackend
from shell_agent_lab.llm.types import ChatOptions, Message

model, system, go = sys.argv[1], sys.argv[2], Path(sys.argv[3])
deadline = time.monotonic() + 60
while not go.exists() and time.monotonic() < deadline:
    time.sleep(0.01)
backend = LocalBackend(model, n_ctx=%d, n_threads=1)
reply = backend.chat([Message("system", system), Message("user", "Say hello.")],
                     options=ChatOptions(max_output_tokens=8))
print(json.dumps({"text": reply.text, "pid": backend.server.pid, "url": backend.server.url}))
""" % N_CTX


@pytest.fixture
def models_dir(_isolated_data_dir):
    root = _isolated_data_dir / "models"
    yield root
    stop_all_servers()
    assert shutdown_servers(root, timeout=60), "a shared server did not stop"


@pytest.mark.llama
def test_two_processes_share_one_real_server_and_the_next_one_restores_slot_0(models_dir, tmp_path):
    model = smollm_path()
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", CLIENT, str(model), SYSTEM, str(go)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    go.touch()
    answers = []
    for proc in procs:
        out, err = proc.communicate(timeout=240)
        assert proc.returncode == 0, err
        answers.append(json.loads(out))
    assert answers[0]["pid"] == answers[1]["pid"] and answers[0]["url"] == answers[1]["url"]
    assert all(a["text"].strip() for a in answers)
    paths = ServerPaths(models_dir, ModelSpec.of_file(model, n_ctx=N_CTX).key)
    assert paths.log.read_text().count("starting llama engine") == 1
    pid = answers[0]["pid"]

    assert shutdown_servers(models_dir, timeout=60) and not pid_alive(pid)
    kv = paths.kv_dir / paths.kv_name
    assert kv.is_file() and kv.stat().st_size > 0 and oct(kv.stat().st_mode & 0o777) == "0o600"

    server = LlamaServer(model, n_ctx=N_CTX, n_threads=1, models_dir=models_dir)
    url = server.start()
    assert server.pid != pid and read_state(paths.state).pid == server.pid
    restored = re.findall(r"restored slot 0 from .*: (\d+) tokens", paths.log.read_text())
    assert restored and int(restored[-1]) > 100
    answer = UrllibHttp().post(f"{url}/v1/chat/completions", {
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "Say bye."}],
        "max_tokens": 4, "temperature": 0}, timeout=120)
    assert answer["timings"]["cache_n"] > 100  # the prefix came from the restored slot
    assert answer["choices"][0]["message"]["content"] is not None
    server.stop()
