"""Write the example notebooks and (re-)record their model cassettes and reference outputs.

    .venv/bin/python tests/nbval/record.py [NAME ...] [--source JSON] [--mode record|replay]
    .venv/bin/python tests/nbval/record.py --adopt [NAME ...]   # metadata for cells recorded before it

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
import hashlib
import json
import sys
import tempfile
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
NOTEBOOKS = ROOT / "notebooks"
sys.path.insert(0, str(HERE))

from notebooks_src import CELLS, GROUPS, NOTEBOOKS as SOURCES  # noqa: E402

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


def adopt(nb: nbformat.NotebookNode, name: str) -> int:
    """Give the assistant's cells of a notebook recorded before cells had metadata their
    ``shell_agent_lab`` metadata (the question that asked, the step, a turn id derived from the
    notebook and that cell) and the ``/cells`` outputs their origin, as a recording writes them
    now; the sources, outputs and cassettes stay as they are. Returns how many cells it changed."""
    from shell_agent_lab.notebook.cells import CELL_TAG, CELLS_MIME, META_KEY, cell_metadata, question_line
    from notebooks_src import CELLS_NOTE, CELLS_NOTE_BEFORE, _is_question

    changed = 0
    asked: dict[str, str] | None = None        # the question cell the next /cells cell writes for
    origin: dict[str, str] | None = None
    step = 0
    for cell in nb.cells:
        source = cell.source if isinstance(cell.source, str) else "".join(cell.source)
        if cell.cell_type == "markdown" and CELLS_NOTE_BEFORE in source:
            cell.source = source.replace(CELLS_NOTE_BEFORE, CELLS_NOTE)
            continue
        if cell.cell_type != "code":
            continue
        if _is_question("code", source):
            message = source.strip().splitlines()[-1].split("%agent", 1)[1].strip()
            turn = hashlib.sha1(f"{name}:{cell.id}".encode()).hexdigest()[:12]
            asked = {"source_cell": cell.id, "turn": turn, "mark": question_line(message)}
        elif source.strip() == CELLS and asked is not None:
            origin, step = asked, 0
            for output in cell.outputs:
                if CELLS_MIME in output.get("data", {}):
                    output.setdefault("metadata", {})[CELLS_MIME] = dict(origin)
        elif CELL_TAG in cell.metadata.get("tags", []) and origin is not None:
            step += 1
            meta = cell.metadata.get(META_KEY, {})
            if "source_cell" not in meta:
                cell.metadata[META_KEY] = {**cell_metadata(origin["source_cell"], step, origin["turn"]), **meta}
                changed += 1
            continue
        else:
            origin = None
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="notebooks to record (default: all)")
    parser.add_argument("--mode", default="record", choices=["record", "record-missing", "replay"])
    parser.add_argument("--source", help='source profile as JSON, e.g. {"backend": "local"}')
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per cell")
    parser.add_argument("--rekey", action="store_true", help="only recompute the named cassettes' keys")
    parser.add_argument("--adopt", action="store_true",
                        help="only give the assistant's cells of the recorded notebooks their metadata")
    ns = parser.parse_args(argv)
    if ns.rekey:
        for name in ns.names:
            print(name, rekey(NOTEBOOKS / "cassettes" / f"{name}.json"))
        return 0
    if ns.adopt:
        for name in ns.names or SOURCES:
            path = NOTEBOOKS / f"{name}.ipynb"
            nb = nbformat.read(path, as_version=4)
            print(name, adopt(nb, name))
            nbformat.write(nb, path)
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
