"""Child process for the table-store kill tests: stores ``old.csv`` as table ``sales``, then
loads ``new.csv`` under the same name in the background and reports where the store is, so the
test can SIGKILL this process there.

Usage: python _table_store.py DB OLD NEW WHERE — WHERE "mid" prints MID once several chunks are
in the database (and keeps storing, slowly); "swap" prints STORED once the store has marked the
table stored but before it is swapped in for the view (the engine lock is held meanwhile).
"""
import sys
import threading
import time

from shell_agent_lab.analysis import AnalysisEngine, AnalysisSettings
from shell_agent_lab.analysis import staging

db, old, new, where = sys.argv[1:5]
original = staging.chunks
staging.BATCH_ROWS = 5_000
handed = 0
ended = threading.Event()
go = threading.Event()
active = threading.Event()


def chunks(reader, **kwargs):
    global handed
    kwargs["rows"] = 5_000                   # many chunks, each committed on its own
    for chunk in original(reader, **kwargs):
        handed += 1
        if active.is_set() and where == "mid":
            if handed == 6:
                print("MID", flush=True)
            time.sleep(0.2)           # slow enough that the kill lands mid-store
        yield chunk
    if active.is_set() and where == "swap":
        ended.set()
        go.wait(60)


staging.chunks = chunks
engine = AnalysisEngine(db, settings=AnalysisSettings(threads=2, background_load_bytes=1))
engine.load(old, "sales")
assert engine.wait_loaded(timeout=60)
print("OLD", engine.row_count("sales"), flush=True)
active.set()
engine.load(new, "sales")
if where == "swap":
    assert ended.wait(60)
    with engine._lock:                       # the swap waits for this lock
        go.set()
        while not engine._conn.execute(f"SELECT bool_and(stored) FROM {staging.LOADS_TABLE}").fetchall()[0][0]:
            time.sleep(0.01)
        print("STORED", flush=True)
        time.sleep(600)
time.sleep(600)
