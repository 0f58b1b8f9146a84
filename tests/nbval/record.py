"""Write the example notebooks and (re-)record their model cassettes and reference outputs.

    .venv/bin/python tests/nbval/record.py [NAME ...] [--source JSON] [--mode record|replay]

Each group of notebooks (see ``notebooks_src.GROUPS``) runs in a fresh data directory, in
order, with ``SHELL_AGENT_LAB_CASSETTE=notebooks/cassettes/<name>.json``. ``--mode record``
(the default) asks the real model — the embedded local one unless ``--source`` gives another
profile as JSON — and rewrites the cassette; the executed notebook, saved in place, is the
reference nbval compares with; the cells ``%agent /cells`` writes are inserted below it and run,
as JupyterLab inserts an answer's cells. ``--mode replay`` re-executes from the cassettes only (to
refresh outputs after a rendering change without asking a model).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
NOTEBOOKS = ROOT / "notebooks"
sys.path.insert(0, str(HERE))

from notebooks_src import GROUPS, NOTEBOOKS as SOURCES  # noqa: E402

from shell_agent_lab.notebook.nbrun import execute, temporary_environ  # noqa: E402


def build(name: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    for kind, source in SOURCES[name]:
        cell = nbformat.v4.new_markdown_cell(source) if kind == "md" else nbformat.v4.new_code_cell(source)
        if kind == "raises":
            cell.metadata["tags"] = ["raises-exception"]
        cell.id = f"{name[:12]}-{len(nb.cells):02d}"
        nb.cells.append(cell)
    return nb


def run_group(names: list[str], *, mode: str, source: str | None, timeout: int) -> None:
    data = tempfile.mkdtemp(prefix="sal-record-")
    for name in names:
        env = {"SHELL_AGENT_LAB_DATA_DIR": data, "SHELL_AGENT_LAB_REPLAY": mode,
               "SHELL_AGENT_LAB_REPLAY_MATCH": "conversation",
               "SHELL_AGENT_LAB_CASSETTE": str(NOTEBOOKS / "cassettes" / f"{name}.json")}
        if source:
            env["SHELL_AGENT_LAB_CASSETTE_SOURCE"] = source
        with temporary_environ(env):
            nb = build(name)
            execute(nb, cwd=NOTEBOOKS, timeout=timeout)     # cells written by /cells go in below and run
        nbformat.write(nb, NOTEBOOKS / f"{name}.ipynb")
        print(f"recorded {name}.ipynb", flush=True)


def rekey(path: Path) -> int:
    """Recompute a cassette's request keys with the current normaliser, matching on the
    conversation only (as the notebooks replay)."""
    from shell_agent_lab.llm.replay import mask_volatile, request_key

    data = json.loads(path.read_text(encoding="utf-8"))
    for item in data["interactions"]:
        for m in item["request"]["messages"]:
            m["content"] = "(system prompt)" if m["role"] == "system" else mask_volatile(m["content"], {})
        item["request"]["tools"] = []
        item["key"] = request_key(item["request"])
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return len(data["interactions"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="notebooks to record (default: all)")
    parser.add_argument("--mode", default="record", choices=["record", "record-missing", "replay"])
    parser.add_argument("--source", help='source profile as JSON, e.g. {"backend": "local"}')
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per cell")
    parser.add_argument("--rekey", action="store_true", help="only recompute the named cassettes' keys")
    ns = parser.parse_args(argv)
    if ns.rekey:
        for name in ns.names:
            print(name, rekey(NOTEBOOKS / "cassettes" / f"{name}.json"))
        return 0
    if ns.source:
        json.loads(ns.source)
    for group in GROUPS:
        if ns.names and not set(ns.names) & set(group):
            continue
        run_group(group, mode=ns.mode, source=ns.source, timeout=ns.timeout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
