"""Child process for the concurrency and crash tests: adds Global Memory facts in a loop.

Usage: python _writer.py DATA_DIR TAG COUNT — prints each entry id after its add returned.
"""
import sys

from shell_agent_lab.store import Caps, Store

data_dir, tag, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
store = Store.open(data_dir, caps=Caps(global_memory=None))
for i in range(count):
    result = store.global_memory.add(
        f"Writer {tag} records item {i} for dataset_{tag}_{i}", "decision", source="user_turn"
    )
    print(result.entry.id, flush=True)
store.close()
