"""Connections through ``%agent`` in a real kernel with a scripted model: connect, list,
describe, a pushed-down query joined with a local DataFrame, on PostgreSQL and Spark; then no
stored byte (the data directory, an exported bundle) holds a password or a token."""
from __future__ import annotations

import json
import os
import sys
import zipfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kernel"))
from kernelhelpers import Kernel, text_of  # noqa: E402

pytestmark = [pytest.mark.engines, pytest.mark.kernel, pytest.mark.slow, pytest.mark.timeout(300)]

AGENT = "__import__('shell_agent_lab.notebook.runtime', fromlist=['x']).get_agent()"


def _call(name: str, **arguments) -> dict:
    return {"text": "", "tool_calls": [{"name": name, "arguments": arguments}]}


SCRIPT = [
    _call("list_tables"),
    _call("describe_data", table_name="pg.sales"),
    _call("query_sql", sql="SELECT region, sum(units) AS units FROM pg.sales GROUP BY region ORDER BY region"),
    _call("query_sql", sql="SELECT r.region, r.units, t.target FROM pg_result r JOIN targets t USING (region) "
                           "ORDER BY r.region"),
    _call("query_sql", sql="SELECT kind, count(*) AS n FROM spark.events GROUP BY kind ORDER BY kind"),
    "North sells most against its target.",
]


@pytest.fixture
def kernel(tmp_path, _isolated_data_dir):
    from jupyter_client.manager import KernelManager

    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JPY_", "SHELL_AGENT_LAB_"))}
    env.update(SHELL_AGENT_LAB_DATA_DIR=str(_isolated_data_dir), SHELL_AGENT_LAB_SCRIPT=str(script),
               PYTHONUNBUFFERED="1", JPY_SESSION_NAME=str(tmp_path / "warehouse.ipynb"))
    (tmp_path / "warehouse.ipynb").write_text("{}")
    km = KernelManager(kernel_name="python3")
    km.start_kernel(env=env, cwd=str(tmp_path))
    k = Kernel(km)
    try:
        k.run("%load_ext shell_agent_lab")
        yield k
    finally:
        k.shutdown()


def _stored_bytes(root: Path) -> list[tuple[str, bytes]]:
    out = []
    for path in root.rglob("*"):
        if path.is_file():
            out.append((str(path), path.read_bytes()))
            if zipfile.is_zipfile(path):
                with zipfile.ZipFile(path) as zf:
                    out += [(f"{path}!{n}", zf.read(n)) for n in zf.namelist()]
    return out


def test_connect_query_join_and_no_secret_is_stored(kernel, tmp_path, _isolated_data_dir, pg_server, spark_server):
    password, token = pg_server.analyst_password, spark_server.token
    kernel.run("import pandas as pd\ntargets = pd.DataFrame({'region': ['east', 'north', 'south', 'west'], "
               "'target': [1, 2, 3, 4]})")
    shown = text_of(kernel.run(f"%agent /connect pg {pg_server.url(password=password)}")["outputs"])
    assert "Connected `pg`" in shown and "pg.sales" in shown and "***" in shown and password not in shown
    shown = text_of(kernel.run(f"%agent /connect spark '{spark_server.url}'")["outputs"])
    assert "Connected `spark`" in shown and "spark.events" in shown and token not in shown
    listed = text_of(kernel.run("%agent /connect")["outputs"])
    assert "`pg` (postgresql" in listed and "`spark` (spark" in listed and password not in listed

    kernel.run('%config ShellAgent.approval_policy = "approve"')
    answer = text_of(kernel.run("%agent How do regions do against their targets?", timeout=240)["outputs"])
    assert "North sells most" in answer
    tools = kernel.value(f"[m.content for r in {AGENT}.backend.requests for m in r.messages if m.role == 'tool']")
    assert any("pg.sales" in t and "PostgreSQL table on connection pg" in t for t in tools)      # list_tables
    assert any("region text" in t for t in tools)                                                  # describe_data
    assert any("pg_result" in t and "north" in t for t in tools)                                   # pushed down
    assert any("target" in t and "north" in t and "pg_result" not in t for t in tools)             # joined locally
    assert any("Ran on spark" in t for t in tools)

    shown = text_of(kernel.run("%agent /disconnect spark")["outputs"])
    assert "Removed the connection `spark`" in shown
    bundle = tmp_path / "out.shellagent"
    kernel.run(f"%agent /export {bundle}")
    with zipfile.ZipFile(bundle) as zf:
        manifest = json.loads(zf.read("manifest.json"))
    assert manifest["connections"] == ["pg", "spark"]
    for where, data in _stored_bytes(_isolated_data_dir) + _stored_bytes(bundle.parent):
        assert password.encode() not in data, where
        assert token.encode() not in data, where
