"""Script tools: header metadata, JSON on stdin, work dir, timeouts that kill the group, capped output."""
from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import psutil
import pytest

from shell_agent_lab.tools.registry import ToolContext, ToolError
from shell_agent_lab.tools.script_tools import (
    WORK_DIR_ENV, load_script_tools, parse_script_header, run_script,
)


def _script(directory: Path, name: str, body: str, *, executable: bool = True) -> Path:
    path = directory / name
    path.write_text(body)
    if executable:
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


ECHO = """#!/usr/bin/env python3
# @tool: echo_args
# @description: Echo the arguments and the work dir
# @param: city string "City name"
# @param: days int "How many days"
# @category: read
# @timeout: 5
import json, os, sys
args = json.load(sys.stdin)
print(json.dumps({"args": args, "work": os.environ.get("%s"), "cwd": os.getcwd()}))
""" % WORK_DIR_ENV


def test_header_parsing(tmp_path):
    tool = parse_script_header(tmp_path / "x", ECHO)
    assert tool.name == "echo_args" and tool.timeout == 5 and tool.category == "read"
    assert tool.params == [("city", "string", "City name"), ("days", "integer", "How many days")]
    assert tool.schema()["required"] == ["city", "days"]


def test_header_defaults_and_bad_values(tmp_path):
    tool = parse_script_header(tmp_path / "x", "# @tool: note-it\n# @category: weird\n# @timeout: -3\n")
    assert tool.name == "note_it" and tool.category == "read" and tool.timeout == 30
    assert parse_script_header(tmp_path / "y", "#!/bin/sh\necho no header\n") is None
    # directives past line 20 are ignored
    assert parse_script_header(tmp_path / "z", "\n" * 25 + "# @tool: late\n") is None


def test_loaded_script_runs_with_json_stdin_and_work_dir(tmp_path):
    tools_dir = tmp_path / "tools"
    tools_dir.mkdir()
    _script(tools_dir, "echo.py", ECHO)
    _script(tools_dir, "plain.sh", "#!/bin/sh\n# @tool: not_exec\n", executable=False)
    os.symlink(tools_dir / "echo.py", tools_dir / "link.py")
    descriptors = load_script_tools(tools_dir)
    assert [d.name for d in descriptors] == ["echo_args"]  # non-executable and symlink skipped
    d = descriptors[0]
    assert d.source == "script" and d.approval_default is False
    work = tmp_path / "work"
    result = d.handler(ToolContext("s", work_dir=work), {"city": "Oslo", "days": 3})
    import json
    out = json.loads(result.content)
    assert out["args"] == {"city": "Oslo", "days": 3}
    assert out["work"] == str(work) and out["cwd"] == str(work)


def test_write_scripts_ask_for_approval(tmp_path):
    _script(tmp_path, "w.sh", "#!/bin/sh\n# @tool: writer\n# @category: write\necho hi\n")
    (d,) = load_script_tools(tmp_path)
    assert d.approval_default is True and d.category == "write"


def _live_members(group: int) -> list[int]:
    """Processes of process group ``group`` that still run (zombies are dead, only not reaped)."""
    live = []
    for proc in psutil.process_iter(["pid", "status"]):
        try:
            if os.getpgid(proc.pid) == group and proc.info["status"] != psutil.STATUS_ZOMBIE:
                live.append(proc.pid)
        except (ProcessLookupError, psutil.Error):
            continue
    return live


@pytest.mark.timeout(60)  # hang guard: without the kill the group would live for 300 s
def test_hanging_script_is_killed_with_its_children(tmp_path):
    pids = tmp_path / "pids"
    script = _script(tmp_path, "hang.sh", f"""#!/bin/sh
# @tool: hang
# @timeout: 1
sleep 300 &
echo $$ $! > {pids}
echo started
wait
""")
    (d,) = load_script_tools(tmp_path)
    with pytest.raises(ToolError, match="timed out after 1s"):
        d.handler(ToolContext("s", work_dir=tmp_path / "w"), {})
    group, child = (int(n) for n in pids.read_text().split())
    assert group != os.getpgid(0)                      # the script ran in a group of its own
    while _live_members(group):                        # SIGKILL lands asynchronously; wait for it
        time.sleep(0.05)
    assert not psutil.pid_exists(child) or psutil.Process(child).status() == psutil.STATUS_ZOMBIE
    assert script.exists()


def test_huge_output_is_capped(tmp_path):
    path = _script(tmp_path, "big.sh", "#!/bin/sh\n# @tool: big\nhead -c 5000000 /dev/zero | tr '\\0' 'a'\n")
    code, output, timed_out = run_script(path, {}, timeout=20, max_output=1000)
    assert code == 0 and not timed_out
    assert output.startswith("a" * 1000)
    assert "[output truncated at 1000 bytes; 5000000 bytes in all]" in output


def test_failing_script_reports_status_and_output(tmp_path):
    _script(tmp_path, "fail.sh", "#!/bin/sh\n# @tool: fail\necho oops >&2\nexit 4\n")
    (d,) = load_script_tools(tmp_path)
    with pytest.raises(ToolError, match=r"exited with status 4:\noops"):
        d.handler(ToolContext("s"), {})


def test_missing_and_unknown_arguments(tmp_path):
    _script(tmp_path, "echo.py", ECHO)
    (d,) = load_script_tools(tmp_path)
    with pytest.raises(ToolError, match="missing required argument"):
        d.handler(ToolContext("s"), {"city": "Oslo"})
    with pytest.raises(ToolError, match="unknown argument"):
        d.handler(ToolContext("s"), {"city": "Oslo", "days": 1, "rm": "-rf"})
