"""``shell-agent-lab doctor`` and ``config show``: real files, a real local HTTP endpoint."""
from __future__ import annotations

import json
import os
import sqlite3
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from shell_agent_lab.cli import _backend_plan, _doctor_checks as checks
from shell_agent_lab.config import ShellAgent
from shell_agent_lab.store import Store

from tests.support.cli_harness import run


class _Models(BaseHTTPRequestHandler):
    status = 200
    seen: list = []

    def do_GET(self):  # noqa: N802
        type(self).seen.append((self.path, self.headers.get("Authorization")))
        body = json.dumps({"object": "list", "data": [{"id": "qwen2.5-coder"}]}).encode()
        self.send_response(type(self).status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def endpoint():
    handler = type("Handler", (_Models,), {"status": 200, "seen": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", handler
    server.shutdown()
    server.server_close()


@pytest.fixture
def no_local(monkeypatch, tmp_path):
    """Nothing on the LM Studio / Ollama ports and no embedded model, whatever this machine has."""
    monkeypatch.setattr(_backend_plan, "port_open", lambda host, port, timeout=0.3: False)
    monkeypatch.setattr(_backend_plan, "local_model_installed", lambda: False)
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))


# --- backend plan (pure) ------------------------------------------------------------------------

def _plan(env, settings=None, **kw):
    kw.setdefault("port_is_open", lambda h, p: False)
    kw.setdefault("local_installed", lambda: False)
    return _backend_plan.plan_backend(settings or ShellAgent(), env, **kw)


def test_plan_follows_the_documented_order():
    assert _plan({"OPENAI_API_KEY": "k", "GEMINI_API_KEY": "g"}).backend == "openai"
    gem = _plan({"GEMINI_API_KEY": "g"})
    assert (gem.backend, gem.key_env) == ("gemini", "GEMINI_API_KEY")
    assert _plan({"GOOGLE_API_KEY": "g"}).key_env == "GOOGLE_API_KEY"
    assert _plan({"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "p"}).backend == "vertex"
    lm = _plan({}, port_is_open=lambda h, p: p == 1234)
    assert (lm.backend, lm.endpoint) == ("openai", "http://127.0.0.1:1234/v1")
    ollama = _plan({}, port_is_open=lambda h, p: p == 11434)
    assert ollama.endpoint == "http://127.0.0.1:11434/v1"
    assert _plan({}, local_installed=lambda: True).backend == "local"
    assert _plan({}).backend == "none"


def test_plan_uses_the_configured_profile_and_reports_unknown_ones():
    settings = ShellAgent(profiles={"lab": {"backend": "ollama", "model": "qwen2.5"}}, profile="lab")
    plan = _plan({"OPENAI_API_KEY": "k"}, settings)
    assert (plan.backend, plan.model, plan.endpoint, plan.profile) == (
        "openai", "qwen2.5", "http://127.0.0.1:11434/v1", "lab")
    missing = _plan({}, ShellAgent(profile="nope"))
    assert missing.backend == "none" and "unknown profile" in missing.reason


# --- probe against a real HTTP endpoint ---------------------------------------------------------

def test_probe_ok_sends_the_key_and_names_the_model(endpoint):
    url, handler = endpoint
    plan = _backend_plan.BackendPlan("openai", "qwen2.5-coder", url, "test", key_env="OPENAI_API_KEY")
    result = _backend_plan.probe(plan, {"OPENAI_API_KEY": "sk-test"}, timeout=2)
    assert result.status == "ok" and "answers" in result.detail
    assert handler.seen == [("/v1/models", "Bearer sk-test")]
    other = _backend_plan.BackendPlan("openai", "gpt-x", url, "test")
    assert _backend_plan.probe(other, {}, timeout=2).status == "warn"


def test_probe_reports_a_refused_key_and_a_dead_endpoint(endpoint):
    url, handler = endpoint
    handler.status = 401
    plan = _backend_plan.BackendPlan("openai", None, url, "test", key_env="OPENAI_API_KEY")
    refused = _backend_plan.probe(plan, {"OPENAI_API_KEY": "bad"}, timeout=2)
    assert refused.status == "fail" and "refused the key" in refused.detail
    dead = _backend_plan.BackendPlan("openai", None, "http://127.0.0.1:9/v1", "test")
    result = _backend_plan.probe(dead, {}, timeout=1)
    assert result.status == "fail" and "does not answer" in result.detail


# --- individual checks --------------------------------------------------------------------------

def test_data_dir_permissions(tmp_path):
    d = tmp_path / "data"
    assert checks.check_data_dir(d).status == "ok"          # created on first use
    d.mkdir(mode=0o700)
    assert checks.check_data_dir(d).status == "ok"
    os.chmod(d, 0o755)
    loose = checks.check_data_dir(d)
    assert loose.status == "warn" and "chmod 700" in loose.detail
    f = tmp_path / "file"
    f.write_text("x")
    assert checks.check_data_dir(f).status == "fail"


def test_database_integrity_ok_and_corrupt(tmp_path):
    d = tmp_path / "data"
    assert checks.check_database(d).status == "ok"           # not created yet
    store = Store.open(d)
    store.create_session(title="one")
    store.close()
    good = checks.check_database(d)
    assert good.status == "ok" and "1 session" in good.detail
    db = d / checks.DB_NAME
    for suffix in ("-wal", "-shm"):
        (d / (checks.DB_NAME + suffix)).unlink(missing_ok=True)
    raw = bytearray(db.read_bytes())
    raw[:16] = b"garbage garbage!"
    db.write_bytes(bytes(raw))
    bad = checks.check_database(d)
    assert bad.status == "fail" and "move it aside" in bad.detail
    assert db.read_bytes()[:16] == b"garbage garbage!"     # never modified


def test_database_integrity_check_failure_is_reported(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    db = d / checks.DB_NAME
    con = sqlite3.connect(db)
    con.execute("PRAGMA page_size = 512")
    con.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, v TEXT)")
    con.execute("CREATE INDEX by_v ON sessions (v)")
    con.executemany("INSERT INTO sessions VALUES (?, ?)", [(str(i), "x" * 50) for i in range(400)])
    con.commit()
    root = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'by_v'").fetchone()[0]
    con.close()
    raw = bytearray(db.read_bytes())
    start = (root - 1) * 512
    raw[start + 8: start + 512] = bytes(504)                  # wipe the index's root page
    db.write_bytes(bytes(raw))
    result = checks.check_database(d)
    assert result.status == "fail"


def test_stray_session_folders_are_reported_not_removed(tmp_path):
    d = tmp_path / "data"
    assert checks.check_session_dirs(d).status == "ok"
    store = Store.open(d)
    s = store.create_session(title="kept")
    store.session_dir(s.id)
    store.close()
    assert checks.check_session_dirs(d).detail == "1 folder, all known"
    stray = d / "sessions" / "sess-0-leftover"
    stray.mkdir()
    result = checks.check_session_dirs(d)
    assert result.status == "warn" and "sess-0-leftover" in result.detail
    assert stray.is_dir()
    (d / "sessions" / "sess-link").symlink_to(tmp_path)
    assert "symbolic link" in checks.check_session_dirs(d).detail


def test_labextension_installed_enabled_disabled_missing(tmp_path):
    ext = tmp_path / "labextensions"
    cfg = tmp_path / "config"
    missing = checks.check_labextension([ext], [cfg])
    assert missing.status == "warn" and "not installed" in missing.detail
    (ext / "shell-agent-lab").mkdir(parents=True)
    (ext / "shell-agent-lab" / "package.json").write_text(json.dumps({"version": "0.1.0"}))
    assert checks.check_labextension([ext], [cfg]).status == "ok"
    (cfg / "labconfig").mkdir(parents=True)
    (cfg / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": {"shell-agent-lab": True}}))
    disabled = checks.check_labextension([ext], [cfg])
    assert disabled.status == "warn" and "labextension enable" in disabled.detail


# --- the commands ---------------------------------------------------------------------------------

def test_doctor_json_with_a_reachable_backend_exits_0(endpoint, no_local, monkeypatch):
    url, _ = endpoint
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    code, out, err = run("doctor", "--json", "--timeout", "2")
    assert code == 0, out + err
    body = json.loads(out)
    names = {c["name"]: c for c in body["checks"]}
    assert names["model backend"]["status"] == "ok"
    assert names["database"]["status"] == "ok"
    assert "sk-test" not in out
    # a server on this machine: nothing leaves it, so the model reads rows
    assert names["data sharing"]["data"] == {"level": "rows", "remote": False, "destination": "this machine"}


def test_doctor_says_what_a_remote_endpoint_reads(no_local):
    env = {"OPENAI_API_KEY": "sk-test"}
    remote = checks.check_data_sharing(ShellAgent(), env)
    assert remote.status == "ok" and remote.data["level"] == "aggregates" and remote.data["remote"]
    assert "default" in remote.detail and "api.openai.com" in remote.detail
    chosen = checks.check_data_sharing(ShellAgent(data_sharing="schema"), env)
    assert chosen.data["level"] == "schema" and "(set)" in chosen.detail


def test_doctor_without_any_backend_exits_1_and_says_how(no_local):
    code, out, _ = run("doctor")
    assert code == 1
    line = next(l for l in out.splitlines() if "model backend" in l)
    assert line.startswith("[FAIL]") and "OPENAI_API_KEY" in line


def test_doctor_offline_and_strict(no_local, tmp_path, monkeypatch):
    code, out, _ = run("doctor", "--offline")
    assert "model backend" not in out
    assert code == 0            # the missing side panel is only a warning …
    monkeypatch.setattr(checks, "_labextension_dirs", lambda: [tmp_path / "none"])
    code, _, _ = run("doctor", "--offline", "--strict")
    assert code == 1            # … unless warnings count


def test_config_show_json(no_local, _isolated_data_dir, tmp_path, monkeypatch):
    cfg = tmp_path / "my_config.py"
    cfg.write_text('c.ShellAgent.profiles = {"lab": {"backend": "lmstudio", "model": "qwen"}}\n'
                   'c.ShellAgent.profile = "lab"\n'
                   'c.ShellAgent.approval_policy = "decline"\n')
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    code, out, err = run("config", "show", "--json", "--config", str(cfg))
    assert code == 0, err
    body = json.loads(out)
    assert body["data_dir"] == str(_isolated_data_dir)
    assert body["data_dir_source"] == "$SHELL_AGENT_LAB_DATA_DIR"
    assert body["profile"] == "lab" and "lab" in body["profiles"]
    assert body["backend"]["endpoint"] == "http://127.0.0.1:1234/v1"
    assert body["settings"]["approval_policy"] == "decline"
    assert body["environment"]["OPENAI_API_KEY"] == "set"
    assert "sk-secret" not in out


def test_config_show_reports_a_broken_config_file(no_local, tmp_path):
    cfg = tmp_path / "bad_config.py"
    cfg.write_text('c.ShellAgent.max_tool_rounds = 0\n')
    code, out, err = run("config", "show", "--config", str(cfg))
    assert code == 1 and out == ""
    assert "max_tool_rounds" in err and err.count("\n") == 1
