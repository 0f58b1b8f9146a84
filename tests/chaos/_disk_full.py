"""Child process for the disk-full tests: writes that are acknowledged, then the same writes
with no room left, then again once room is back. Prints one JSON object.

Usage: python _disk_full.py DATA_DIR CSV MODE — MODE "fsize" lowers RLIMIT_FSIZE in this
process; MODE "tmpfs" fills the (small tmpfs) data directory with a ballast file.
"""
import json
import resource
import signal
import sys
from pathlib import Path

from shell_agent_lab.analysis import AnalysisEngine
from shell_agent_lab.store import Store

data_dir, csv, mode = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)        # a write past the limit fails instead of killing
store = Store.open(data_dir)
sid = store.create_session(title="Disk full", notebook_path="full.ipynb").id
engine = AnalysisEngine(store.session_dir(sid) / "analysis.duckdb", base_dir=Path(csv).parent)
acked = {
    "memory": store.global_memory.add("User prefers plotly for charts", "preference", source="user_turn").entry.id,
    "finding": store.findings.add(sid, "EU leads revenue with 4.2M", source="analyze_data").id,
    "record": store.append_record(sid, "user", "first question").seq,
    "table": engine.load(csv, "first").rows,
}
PAD = " — " + "detail " * 250


def attempt(i):
    """Each write once; the error (class and message) or None."""
    writes = {
        "memory": lambda: store.global_memory.add(f"User prefers chart style {i}{PAD}", "preference",
                                                  source="user_turn"),
        "finding": lambda: store.findings.add(sid, f"Finding {i}{PAD * 4}", source="analyze_data"),
        "record": lambda: store.append_record(sid, "user", f"question {i}{PAD * 8}"),
        "table": lambda: engine.load(csv, f"second_{i}"),
    }
    out = {}
    for name, write in writes.items():
        try:
            write()
            out[name] = None
        except Exception as exc:  # noqa: BLE001 - the test reads the class and message
            out[name] = [type(exc).__name__, str(exc)]
    return out


ballast = data_dir / "ballast"
if mode == "fsize":
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1, hard))
else:
    with open(ballast, "wb") as f:
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        except OSError:
            pass
full = attempt(1)
if mode == "fsize":
    resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
else:
    ballast.unlink()
again = attempt(2)
engine.close()
store.close()
print(json.dumps({"acked": acked, "full": full, "again": again, "session": sid}))
