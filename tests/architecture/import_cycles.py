"""Import cycles between a package's modules, from its import graph (grimp).

``python import_cycles.py PACKAGE`` prints each cycle (a strongly connected set of modules, one
per line) and exits 1 when there is one. Every import counts: top-level, inside functions and
under ``TYPE_CHECKING`` — a cycle of lazy imports still means the modules cannot be understood
(or moved) one without the other.
"""
from __future__ import annotations

import sys

import grimp


def import_cycles(package: str) -> list[list[str]]:
    """The package's strongly connected sets of more than one module, each sorted."""
    graph = grimp.build_graph(package, cache_dir=None)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in sorted(graph.modules)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found)


if __name__ == "__main__":
    cycles = import_cycles(sys.argv[1] if len(sys.argv) > 1 else "shell_agent_lab")
    for cycle in cycles:
        print(" <-> ".join(cycle))
    sys.exit(1 if cycles else 0)
