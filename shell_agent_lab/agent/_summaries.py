"""One readable line for a tool result (pure): what the panel and the cell show for a tool step."""
from __future__ import annotations

import re

__all__ = ["result_summary"]

_FOOTER = re.compile(r"^\(([\d,]+) rows?(?:; first [\d,]+ shown)?\)$")


def result_summary(text: str, limit: int = 160) -> str:
    """A Markdown table becomes ``3 rows × 2 columns: region, total_revenue``; a one-row
    ``column = value`` listing ``1 row: region = West, total = 38988``; anything else its first line."""
    lines = [line.strip() for line in (text or "").strip().splitlines()]
    if not lines:
        return ""
    if lines[0].startswith("|") and lines[0].endswith("|"):
        columns = [c.strip() for c in lines[0].strip("|").split("|")]
        footer = next((m for m in map(_FOOTER.match, reversed(lines)) if m), None)
        rows = int(footer.group(1).replace(",", "")) if footer else \
            max(0, sum(1 for line in lines if line.startswith("|")) - 2)
        line = (f"{rows:,} row{'s' if rows != 1 else ''} × {len(columns)} column{'s' if len(columns) != 1 else ''}: "
                + ", ".join(columns))
    elif lines[-1] == "(1 row)" and all(" = " in line for line in lines[:-1]):
        line = "1 row: " + ", ".join(lines[:-1])
    else:
        line = lines[0]
    return line if len(line) <= limit else line[:limit - 1] + "…"
