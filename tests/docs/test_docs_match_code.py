"""The reference tables in the docs agree with the code they describe, so they cannot rot."""
from __future__ import annotations

import re
import shlex

import pytest

from docs_pages import DOCS, blocks, shell_lines


def _page(name: str) -> str:
    return (DOCS / name).read_text("utf-8")


_CELL_SPLIT = re.compile(r"\|(?=(?:[^`]*`[^`]*`)*[^`]*$)")  # pipes outside code spans


def _cells(line: str) -> list[str]:
    return [c.strip() for c in _CELL_SPLIT.split(line.strip().strip("|"))]


def _table_rows(text: str, header: str) -> dict[str, list[str]]:
    """The table whose first header cell is ``header``: {first cell without backticks: other cells}."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("|") and _cells(line)[0] == header:
            rows: dict[str, list[str]] = {}
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                cells = _cells(row)
                rows[cells[0].strip("`")] = cells[1:]
            return rows
    raise AssertionError(f"no table with the header {header!r}")


def test_slash_command_table_matches_the_parser():
    from shell_agent_lab.notebook.args import COMMANDS

    rows = _table_rows(_page("magics.md"), "Command")
    documented = {usage for usage in rows if usage.startswith("/")}
    assert documented == {spec.usage for spec in COMMANDS.values()}
    for spec in COMMANDS.values():
        assert rows[spec.usage][0] == spec.summary, spec.usage


def test_magic_options_are_documented():
    from shell_agent_lab.notebook.args import usage

    rows = _table_rows(_page("magics.md"), "Option")
    for option in re.findall(r"--[a-z-]+", usage()):
        assert any(key.startswith(option) for key in rows), option


def test_approval_table_matches_the_tool_registry():
    from shell_agent_lab.agent.factory import default_registry

    rows = _table_rows(_page("approvals.md"), "Tool")
    tools = {d.name: d for d in default_registry().all()}
    assert set(rows) == set(tools)
    for name, d in tools.items():
        category, default = rows[name]
        assert category == d.category, name
        assert default == ("asks" if d.approval_default else "runs"), name


def test_settings_table_lists_every_setting_with_its_default():
    from shell_agent_lab.config import ShellAgent

    rows = _table_rows(_page("configuration.md"), "Setting")
    settings = ShellAgent()
    names = set(settings.trait_names(config=True))
    assert set(rows) == names
    for name in names:
        assert rows[name][0] == f"`{getattr(settings, name)!r}`", name


def _placeholders(line: str) -> list[str]:
    """A documented command line with its optional parts dropped and placeholders filled in."""
    line = re.sub(r"\[[^\[\]]*\]", "", line)
    line = re.sub(r"\[[^\[\]]*\]", "", line)
    words = shlex.split(line)[1:]
    fill = {"ID": "sess-1", "ENTRY_ID": "1", "FILE": "bundle.shellagent", "PATH": "out",
            "SECONDS": "3", "N": "2", "…": ""}
    return [fill.get(w, w) for w in words if fill.get(w, w)]


def _documented_commands() -> list[str]:
    lines: list[str] = []
    for block in blocks("cli.md"):
        lines += [l for l in shell_lines(block) if l.startswith("shell-agent-lab ")]
    return lines


@pytest.mark.parametrize("line", _documented_commands())
def test_every_documented_command_line_parses(line):
    from shell_agent_lab.cli import build_parser

    args = build_parser().parse_args(_placeholders(line))
    assert callable(getattr(args, "func", None)), line


def test_every_command_is_documented():
    import argparse

    from shell_agent_lab.cli import build_parser

    documented = " ".join(_documented_commands())
    parser = build_parser()
    missing = []

    def walk(p: argparse.ArgumentParser, prefix: list[str]) -> None:
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            if f"shell-agent-lab {' '.join(prefix)}" not in documented:
                missing.append(" ".join(prefix))
            return
        for name, child in subs[0].choices.items():
            walk(child, prefix + [name])

    walk(parser, [])
    assert not missing, f"commands missing from docs/cli.md: {missing}"


def test_profile_examples_configure_real_backends():
    """The profiles shown in configuration.md load as settings and resolve to the backends named."""
    from traitlets.config import Config

    from shell_agent_lab.config import ShellAgent
    from shell_agent_lab.llm.selection import resolve_profile

    example = next(b.text for b in blocks("configuration.md") if "c.ShellAgent.profiles" in b.text)
    c = Config()
    exec(compile(example, "configuration.md", "exec"), {"c": c})
    settings = ShellAgent(config=c)
    expected = {"openai": "openai", "lmstudio": "openai", "ollama": "openai", "gemini": "gemini",
                "vertex": "vertex", "offline": "local"}
    assert set(settings.profiles) == set(expected)
    for name, backend in expected.items():
        profile = resolve_profile(settings, name, env={})
        assert profile.backend == backend, name
    assert resolve_profile(settings, "ollama", env={}).endpoint == "http://127.0.0.1:11434/v1"
    assert resolve_profile(settings, "vertex", env={}).options["project"] == "my-gcp-project"
    assert settings.profile == "lmstudio"


def test_tool_page_examples_define_working_tools(tmp_path):
    """The @tool function and the script tool shown in tools.md register with the schema the
    page describes, and the script runs."""
    from shell_agent_lab.tools.python_tools import USER_TOOLS
    from shell_agent_lab.tools.script_tools import load_script_tools, run_script

    python_example = next(b.text for b in blocks("tools.md") if "@sal.tool" in b.text)
    namespace: dict = {}
    exec(compile(python_example, "tools.md", "exec"), namespace)
    try:
        fx = USER_TOOLS.get("fx_rate")
        assert fx is not None and fx.category == "read" and not fx.approval_default
        assert fx.parameters["required"] == ["currency"]
        assert set(fx.parameters["properties"]) == {"currency", "day"}
        assert "ISO code" in fx.parameters["properties"]["currency"]["description"]
        assert namespace["fx_rate"]("USD") == 1.08
    finally:
        USER_TOOLS.unregister("fx_rate")

    script_example = next(b.text for b in blocks("tools.md") if "@tool: word_count" in b.text)
    tools_dir, work = tmp_path / "tools", tmp_path / "work"
    tools_dir.mkdir()
    work.mkdir()
    script = tools_dir / "word_count.sh"
    script.write_text(script_example)
    script.chmod(0o700)
    (work / "notes.txt").write_text("three little words")
    (descriptor,) = load_script_tools(tools_dir)
    assert descriptor.name == "word_count" and descriptor.category == "read"
    assert descriptor.parameters["properties"]["path"]["type"] == "string"
    code, output, timed_out = run_script(script, {"path": "notes.txt"}, timeout=10, work_dir=work)
    assert (code, timed_out) == (0, False)
    assert output.split()[0] == "3"


def test_notebooks_named_in_the_docs_exist():
    from docs_pages import ROOT

    named = set()
    for page in DOCS.glob("*.md"):
        named |= set(re.findall(r"`([\w-]+\.ipynb)`", page.read_text("utf-8")))
    assert named, "the quickstart lists the example notebooks"
    missing = sorted(n for n in named if not (ROOT / "notebooks" / n).is_file())
    assert not missing, f"docs name notebooks that are not in notebooks/: {missing}"
