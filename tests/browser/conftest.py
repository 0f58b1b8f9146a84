"""A real JupyterLab server and Debian's Chromium driven by Python playwright.

One server and one browser per test session (random port, random token, isolated config,
data, runtime, settings and workspace directories). The server loads the side panel built in
this tree (``shell_agent_lab/labextension``, built by ``make setup``), and its kernels keep the
assistant's state in a temporary data directory. Failing tests leave a screenshot and the
browser console in ``test-artifacts/``.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILT = ROOT / "shell_agent_lab" / "labextension"
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("SHELL_AGENT_LAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run"]


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture(scope="package")
def lab_server(tmp_path_factory):
    if not (BUILT / "package.json").exists():
        pytest.fail("the side panel is not built: run `make setup` (or `cd labextension && jlpm build`)")
    root = tmp_path_factory.mktemp("labroot")
    home = tmp_path_factory.mktemp("labhome")
    data = tmp_path_factory.mktemp("agentdata")
    port, token = _free_port(), secrets.token_hex(16)
    # the tree's build of the panel wins over any installed copy (JUPYTER_PATH comes first)
    jpath = home / "jupyter_path"
    (jpath / "labextensions").mkdir(parents=True)
    os.symlink(BUILT, jpath / "labextensions" / "shell-agent-lab")
    settings = home / "settings"
    # no news toast over the UI; short request timeout so the unreachable state shows fast
    _write(settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings",
           json.dumps({"fetchNews": "false"}))
    _write(settings / "shell-agent-lab" / "plugin.jupyterlab-settings", json.dumps({"requestTimeoutSeconds": 12}))
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(home / "config"), "JUPYTER_DATA_DIR": str(home / "data"),
           "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "IPYTHONDIR": str(home / "ipython"),
           "JUPYTER_PATH": str(jpath), "HOME": str(home), "SHELL_AGENT_LAB_DATA_DIR": str(data)}
    for key in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        env.pop(key, None)
    cmd = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--allow-root",
           "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
           "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=None",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
           f"--LabApp.workspaces_dir={home / 'ws'}", f"--LabApp.user_settings_dir={settings}"]
    ARTIFACTS.mkdir(exist_ok=True)
    log = open(ARTIFACTS / "jupyter-server.log", "w")
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            log.close()
            pytest.fail(f"JupyterLab did not start; see {ARTIFACTS / 'jupyter-server.log'}")
        time.sleep(0.3)
    yield {"base": base, "token": token, "root": root, "data": data}
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="package")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: apt-get install chromium (or `make system-deps`)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.rep_call = report


@pytest.fixture
def page(browser, request):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    pg = context.new_page()
    console: list[str] = []
    pg.on("console", lambda m: console.append(f"[{m.type}] {m.text}"))
    pg.on("pageerror", lambda e: console.append(f"[pageerror] {e}"))
    pg.set_default_timeout(30_000)
    yield pg
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        ARTIFACTS.mkdir(exist_ok=True)
        name = request.node.name.replace("/", "_")
        try:
            pg.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
        except Exception:  # the page may be gone; the console log still helps
            pass
        (ARTIFACTS / f"{name}.console.txt").write_text("\n".join(console))
    context.close()
