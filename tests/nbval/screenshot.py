"""Take docs/screenshots/quickstart.png: JupyterLab (started the way `make run` starts it) showing
the quickstart notebook with the answers the embedded local model gave when it was recorded.

    .venv/bin/python tests/nbval/screenshot.py [--run]

``--run`` re-executes the notebook in the browser first (asks the real model: minutes on a laptop).
"""
from __future__ import annotations

import argparse
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "screenshots" / "quickstart.png"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--run", action="store_true", help="run all cells before the screenshot")
    ns = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from shell_agent_lab import launch

    home = Path(tempfile.mkdtemp(prefix="sal-shot-"))
    settings = home / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
    port, token = _free_port(), secrets.token_hex(16)
    base = launch.write_kernelspec(home / "launch")
    env = launch.lab_env(base, {**os.environ, "JUPYTER_CONFIG_DIR": str(home / "config"),
                                "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
                                "SHELL_AGENT_LAB_DATA_DIR": str(home / "data")})
    cmd = launch.lab_command(launch.find_notebooks(ROOT), [
        "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", f"--IdentityProvider.token={token}",
        "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        f"--LabApp.workspaces_dir={home / 'ws'}", f"--LabApp.user_settings_dir={home / 'settings'}",
        "--LabApp.expose_app_in_browser=True"], is_root=True)
    server = subprocess.Popen(cmd[:-1], cwd=ROOT / "notebooks", env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                        args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{url}/lab/tree/quickstart.ipynb?reset&token={token}")
            page.wait_for_function("() => { const w = window.jupyterapp?.shell.currentWidget;"
                                   " const k = w?.sessionContext?.session?.kernel; return k && k.status === 'idle'; }",
                                   timeout=120_000)
            if ns.run:
                page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
                page.wait_for_function("() => window.jupyterapp.shell.currentWidget.sessionContext.session"
                                       ".kernel.status === 'idle'", timeout=1_800_000)
            cells = page.locator(".jp-Notebook .jp-Cell")
            cells.nth(5).scroll_into_view_if_needed()
            time.sleep(1.5)
            OUT.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(OUT))
            browser.close()
        print(f"wrote {OUT}")
    finally:
        server.terminate()
        server.wait(timeout=20)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
