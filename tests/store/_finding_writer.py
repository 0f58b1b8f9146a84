"""Child process for the Finding race test: adds the same 25 findings to one session as its
siblings do, starting at a different one.

Usage: python _finding_writer.py DATA_DIR SESSION_ID N — prints the id of each finding it added
(a duplicate of one already recorded prints nothing).
"""
import sys

from shell_agent_lab.store import Caps, Store

data_dir, session_id, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
store = Store.open(data_dir, caps=Caps(findings=None))
for k in range(25):
    i = (k + 6 * n) % 25
    added = store.findings.add(session_id, f"Region r{i} leads sales in week {i}")
    if added is not None:
        print(added.id, flush=True)
store.close()
