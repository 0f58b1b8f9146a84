"""Every command the quickstart shows is run here, in page order.

* ``shell-agent-lab …`` lines run through the installed console script (a subprocess), against
  the test's data dir and a local OpenAI-compatible endpoint, and must exit 0;
* ``jupyter lab`` is checked to start far enough to report its version;
* ``pip install …`` names this distribution (and only extras it declares);
* every Python block runs in a real IPython shell with the extension loaded and an agent on a
  scripted model: magics, slash commands and plain Python, cell by cell, must all succeed.

A command the test does not know how to check fails the test, so the page cannot grow an
unchecked command.
"""
from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import metadata
from pathlib import Path

import pytest

from docs_pages import blocks, shell_lines

BIN = Path(sys.executable).parent
SALES = "region,week,revenue\nEU,11,100\nEU,12,180\nUS,11,95\nUS,12,97\n"


class _Models(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - what doctor asks an OpenAI-compatible server
        body = json.dumps({"object": "list", "data": [{"id": "local-model"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Models)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


@pytest.fixture
def shell(tmp_path, monkeypatch):
    """A real InteractiveShell whose agent answers from a scripted model (extension not loaded:
    the quickstart's own ``%load_ext`` line does that)."""
    from IPython.core.interactiveshell import InteractiveShell

    from shell_agent_lab.agent.factory import build_agent
    from shell_agent_lab.llm.scripted import ScriptedBackend, call, reply
    from shell_agent_lab.notebook import runtime as runtime_mod
    from shell_agent_lab.notebook.extension import settings_for

    backend = ScriptedBackend(
        [call("list_tables", {}), reply("EU had an anomalous week 12 (revenue 180 vs about 100).")],
        fn=lambda messages, tools: reply("Noted."))
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.setenv("SHELL_AGENT_LAB_FRONTEND", "headless")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sales.csv").write_text(SALES)
    ip = InteractiveShell.instance()
    ip.user_ns.pop("__session__", None)
    ip.config.pop("ShellAgent", None)

    def build(*, shell, base, approver):
        return build_agent(settings_for(shell), namespace=lambda: shell.user_ns, base_dir=tmp_path,
                           approver=approver, backend=backend)

    runtime_mod.reset_runtime()
    runtime_mod.get_runtime(ip, build=build)
    ip.backend_under_test = backend
    yield ip
    if "agent" in ip.magics_manager.magics["line"]:
        ip.run_line_magic("unload_ext", "shell_agent_lab")
    runtime_mod.reset_runtime()
    ip.config.pop("ShellAgent", None)
    for c in list(ip.configurables):
        if type(c).__name__ == "ShellAgent":
            ip.configurables.remove(c)


def _check_pip(line: str) -> None:
    words = shlex.split(line)
    assert words[:2] == ["pip", "install"], line
    requirement = words[2]
    name, _, extras = requirement.partition("[")
    dist = metadata.distribution(name)               # installed under exactly this name
    assert dist.metadata["Name"] == "shell-agent-lab"
    declared = set(dist.metadata.get_all("Provides-Extra") or [])
    for extra in filter(None, extras.rstrip("]").split(",")):
        assert extra in declared, f"{line}: the package has no extra {extra!r}"


def _run_cli(line: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    words = shlex.split(line)
    return subprocess.run([str(BIN / words[0]), *words[1:]], env=env, capture_output=True,
                          text=True, timeout=120)


def _run_cell(ip, code: str):
    from IPython.utils.capture import capture_output

    with capture_output() as cap:
        result = ip.run_cell(code, store_history=True)
    return result, cap


@pytest.mark.slow
def test_every_quickstart_command_runs(shell, endpoint, tmp_path, _isolated_data_dir):
    env = {**os.environ, "OPENAI_BASE_URL": endpoint, "OPENAI_API_KEY": "sk-test",
           "SHELL_AGENT_LAB_DATA_DIR": str(_isolated_data_dir), "IPYTHONDIR": str(tmp_path / "ipy")}
    seen = {"pip": 0, "cli": 0, "jupyter": 0, "python": 0}
    outputs: dict[str, str] = {}
    for block in blocks("quickstart.md"):
        if block.lang == "python":
            result, cap = _run_cell(shell, block.text)
            shown = cap.stdout + cap.stderr + "".join(str(o.data) for o in cap.outputs)
            assert result.success, f"quickstart cell failed:\n{block.text}\n{result.error_in_exec!r}\n{shown}"
            assert "rror" not in shown, f"quickstart cell reported an error:\n{block.text}\n{shown}"
            outputs[block.text.strip()] = shown
            seen["python"] += 1
            continue
        assert block.lang == "bash", f"unexpected code block language {block.lang!r} in the quickstart"
        for line in shell_lines(block):
            if line.startswith("pip install"):
                _check_pip(line)
                seen["pip"] += 1
            elif line == "jupyter lab":
                done = subprocess.run([str(BIN / "jupyter"), "lab", "--version"], capture_output=True,
                                      text=True, timeout=120)
                assert done.returncode == 0 and done.stdout.strip().startswith("4."), done.stderr
                seen["jupyter"] += 1
            elif line.startswith("shell-agent-lab "):
                done = _run_cli(line, env)
                assert done.returncode == 0, f"{line} exited {done.returncode}:\n{done.stdout}{done.stderr}"
                outputs[line] = done.stdout
                seen["cli"] += 1
            else:
                pytest.fail(f"the quickstart shows a command this test does not check: {line!r}")
    assert all(seen.values()), seen

    # what the commands did, not only that they ran
    answer = outputs["%agent which regions had anomalous weeks in df?"]
    assert "EU had an anomalous week 12" in answer
    assert any(m.role == "tool" for r in shell.backend_under_test.requests for m in r.messages)
    assert "model backend: openai" in outputs["shell-agent-lab doctor"]
    from shell_agent_lab.notebook.runtime import get_agent

    facts = [e.fact for e in get_agent().store.global_memory.list()]
    assert any("fiscal year starts in April" in f for f in facts), facts
    assert "fiscal year starts in April" in outputs["shell-agent-lab memory list"]
    listed = outputs["shell-agent-lab sessions list"]
    assert listed.strip(), "the notebook's session should be listed"
    exported = list(Path.cwd().glob("*.shellagent"))
    assert len(exported) == 1, "%agent /export should write one bundle next to the notebook"
