"""The answer benchmark's results: per-question rows, the summary, and Markdown tables (pure).

A question row (:func:`question_row`) holds the verdict, the time, the parts as answered next
to the expected ones, what the turn did (tool calls, the last tool result's status, an error),
the prompt tokens of each model request it made (from the cassette), the question's set
(``dev``, ``heldout`` or ``external``), style (``closed`` or ``natural``) and, for the external
set's natural questions, the answer-format wording it was asked with and the question it came
from. :func:`summarize` reduces the rows to accuracy (overall, per set, style, set and style,
category, file, wording, position in the session, first question of a session against the later
ones), the spread between the best and the worst wording, seconds (median, p90, p95, max, the
first question in a new kernel), prompt tokens, the count of each failure kind and the sessions'
start times and peak memory. :func:`margin` sets the product's accuracy beside a baseline's on
the same questions (:func:`markdown_baseline` renders both).

The external set must stay unread until it is recorded, so the per-question Markdown lines of its
rows give the verdict, never what was answered or expected (the JSON rows hold both).
"""
from __future__ import annotations

import math
import statistics
from typing import Any, Iterable, Mapping, Sequence

from benchmarks.answers_questions import CATEGORIES
from benchmarks.answers_score import FAILURE_KINDS, Verdict
from benchmarks.heldout_questions import HELDOUT_CATEGORIES

__all__ = ["question_row", "summarize", "markdown", "percentile", "margin", "markdown_baseline", "wording_spread"]

_TEXT_CHARS = 4000


def percentile(values: Sequence[float], q: float) -> float | None:
    """The nearest-rank percentile (``q`` in 0–100); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def question_row(*, question: Any, session: str, position: int, expected: Mapping[str, Any], verdict: Verdict,
                 seconds: float, text: str, timed_out: bool, error: str | None, tool_calls: int,
                 last_tool_status: str | None, tokens: Sequence[int], set_name: str = "dev",
                 style: str = "closed", wording: str | None = None) -> dict[str, Any]:
    return {"id": question.id, "question": getattr(question, "question_id", question.id), "set": set_name,
            "style": style, "wording": wording, "file": question.file,
            "category": question.category, "session": session,
            "position": position, "first_in_session": position == 1, "correct": verdict.correct,
            "kind": verdict.kind, "seconds": round(seconds, 3), "timed_out": timed_out, "error": error,
            "expected": dict(expected), "answer": dict(verdict.answer), "right": dict(verdict.right),
            "why": verdict.why or None,
            "tool_calls": tool_calls, "last_tool_status": last_tool_status, "prompt_tokens": list(tokens),
            "text": text[:_TEXT_CHARS]}


def _accuracy(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    rows = list(rows)
    right = sum(1 for r in rows if r["correct"])
    return {"n": len(rows), "correct": right, "accuracy": round(right / len(rows), 4) if rows else None}


def _rounded(value: float | None, digits: int = 2) -> float | None:
    return None if value is None else round(value, digits)


def _position(row: Mapping[str, Any]) -> str:
    return str(row["position"]) if row["position"] < 4 else "4+"


def _seconds(values: Sequence[float]) -> dict[str, Any]:
    return {"median": _rounded(_median(values)), "p90": _rounded(percentile(values, 90)),
            "p95": _rounded(percentile(values, 95)), "max": _rounded(max(values, default=None))}


def _groups(rows: Sequence[Mapping[str, Any]], key: Any) -> dict[str, Any]:
    """Accuracy and seconds per value of ``key(row)``, in first-seen order."""
    out: dict[str, Any] = {}
    for value in dict.fromkeys(key(r) for r in rows):
        chosen = [r for r in rows if key(r) == value]
        out[value] = {**_accuracy(chosen), "seconds": _seconds([r["seconds"] for r in chosen if r["seconds"]])}
    return out


def wording_spread(by_wording: Mapping[str, Mapping[str, Any]]) -> dict[str, Any] | None:
    """The best and the worst wording by accuracy and the gap between them in points; None with
    fewer than two wordings."""
    scored = {w: b["accuracy"] for w, b in by_wording.items() if b.get("accuracy") is not None}
    if len(scored) < 2:
        return None
    best = max(scored, key=lambda w: scored[w])
    worst = min(scored, key=lambda w: scored[w])
    return {"best": best, "worst": worst, "points": round(100 * (scored[best] - scored[worst]), 1)}


def _wording_blocks(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    worded = [r for r in rows if r.get("wording")]
    if not worded:
        return {}
    by_wording = _groups(worded, lambda r: r["wording"])
    return {"by_wording": by_wording, "wording_spread": wording_spread(by_wording)}


def summarize(rows: Sequence[Mapping[str, Any]], sessions: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    seconds = [r["seconds"] for r in rows if r["seconds"]]       # 0: the question never ran
    first = [r["seconds"] for r in rows if r["first_in_session"] and r["seconds"]]
    later = [r["seconds"] for r in rows if not r["first_in_session"] and r["seconds"]]
    first_tokens = [r["prompt_tokens"][0] for r in rows if r["prompt_tokens"]]
    all_tokens = [t for r in rows for t in r["prompt_tokens"]]
    starts = [s["start_seconds"] for s in sessions if s.get("start_seconds")]
    summary: dict[str, Any] = {
        **_accuracy(rows),
        "first_in_session": _accuracy(r for r in rows if r["first_in_session"]),
        "later_in_session": _accuracy(r for r in rows if not r["first_in_session"]),
        "by_set": _groups(rows, lambda r: r.get("set", "dev")),
        "by_style": _groups(rows, lambda r: r.get("style", "closed")),
        "by_set_style": _groups(rows, lambda r: f"{r.get('set', 'dev')}/{r.get('style', 'closed')}"),
        **_wording_blocks(rows),
        "by_position": dict(sorted(_groups(rows, _position).items())),
        "by_set_category": _groups(rows, lambda r: f"{r.get('set', 'dev')}/{r['category']}"),
        "by_category": {c: _accuracy(r for r in rows if r["category"] == c)
                        for c in dict.fromkeys(CATEGORIES + HELDOUT_CATEGORIES) if any(r["category"] == c for r in rows)},
        "by_file": {f: _accuracy(r for r in rows if r["file"] == f) for f in dict.fromkeys(r["file"] for r in rows)},
        "failures": {k: sum(1 for r in rows if r["kind"] == k) for k in FAILURE_KINDS},
        "seconds": {**_seconds(seconds),
                    "first_in_kernel_median": _rounded(_median(first)),
                    "later_median": _rounded(_median(later)), "total": _rounded(sum(seconds), 1)},
        "kernel_start_seconds": {"median": _rounded(_median(starts)), "max": _rounded(max(starts, default=None))},
        "prompt_tokens": {"requests": len(all_tokens), "first_request_median": _median(first_tokens),
                          "first_request_max": max(first_tokens, default=None),
                          "median": _median(all_tokens), "max": max(all_tokens, default=None)},
    }
    peaks = [s["peak_rss"] for s in sessions if s.get("peak_rss")]
    if peaks:
        summary["peak_rss_mb"] = {key: round(max(p.get(key, 0) for p in peaks) / 2 ** 20, 1)
                                  for key in ("kernel_tree", "model_server")}
    return summary


def _pct(block: Mapping[str, Any]) -> str:
    if not block["n"]:
        return "–"
    return f"{block['correct']}/{block['n']} ({100 * block['accuracy']:.1f}%)"


def _cell(value: Any) -> str:
    if value is None:
        return "–"
    return str(value).replace("|", "\\|").replace("\n", " ")


def _table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def _span(seconds: Mapping[str, Any]) -> str:
    return " / ".join(_cell(seconds[k]) for k in ("median", "p90", "p95", "max"))


def _parts(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v:.10g}" if isinstance(v, float) else f"{k}={v}" for k, v in values.items())


def _wording_table(summary: Mapping[str, Any]) -> list[str]:
    if not summary.get("by_wording"):
        return []
    out = ["", _table(["wording (natural questions)", "right", "s median / p90 / p95 / max"],
                      [(k, _pct(b), _span(b["seconds"])) for k, b in summary["by_wording"].items()])]
    spread = summary.get("wording_spread")
    if spread:
        out += ["", f"Spread between wordings: {spread['points']:.1f} points "
                    f"(best {spread['best']}, worst {spread['worst']})."]
    return out


def _question_lines(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per question; an external question's line gives no answered or expected values."""
    if rows and all(r.get("set") == "external" for r in rows):
        return ["", _table(["question", "wording", "result", "kind", "s"], [
            (r["id"], r.get("wording"), "right" if r["correct"] else "wrong", r["kind"], f"{r['seconds']:.1f}")
            for r in rows])]
    return ["", _table(["question", "result", "kind", "s", "answered", "expected"], [
        (r["id"], "right" if r["correct"] else "wrong", r["kind"], f"{r['seconds']:.1f}",
         "–" if r.get("set") == "external" else _parts(r["answer"]),
         "–" if r.get("set") == "external" else _parts(r["expected"])) for r in rows])]


def markdown(summary: Mapping[str, Any], rows: Sequence[Mapping[str, Any]],
             title: str = "Answer benchmark") -> str:
    """The report as Markdown: overall figures, categories, failure kinds, one line per question."""
    s, t = summary["seconds"], summary["prompt_tokens"]
    out = [f"## {title}", "", _table(["measure", "value"], [
        ("accuracy", _pct(summary)),
        ("first question of a session", _pct(summary["first_in_session"])),
        ("later questions", _pct(summary["later_in_session"])),
        ("seconds per question, median / p90 / p95 / max",
         f"{_cell(s['median'])} / {_cell(s['p90'])} / {_cell(s['p95'])} / {_cell(s['max'])}"),
        ("first question in a new kernel, median s", s["first_in_kernel_median"]),
        ("later questions, median s", s["later_median"]),
        ("kernel start + setup, median / max s",
         f"{_cell(summary['kernel_start_seconds']['median'])} / {_cell(summary['kernel_start_seconds']['max'])}"),
        ("prompt tokens, first request: median / max",
         f"{_cell(t['first_request_median'])} / {_cell(t['first_request_max'])}"),
        ("prompt tokens, all requests: median / max", f"{_cell(t['median'])} / {_cell(t['max'])}"),
        ("model requests", t["requests"]),
    ] + ([("peak RSS MB, kernel tree / model server",
           f"{summary['peak_rss_mb']['kernel_tree']} / {summary['peak_rss_mb']['model_server']}")]
         if "peak_rss_mb" in summary else []))]
    out += ["", _table(["set / style", "right", "s median / p90 / p95 / max"],
                       [(k, _pct(b), _span(b["seconds"])) for k, b in summary["by_set_style"].items()])]
    out += _wording_table(summary)
    out += ["", _table(["position in session", "right", "s median / p90 / p95 / max"],
                       [(k, _pct(b), _span(b["seconds"])) for k, b in summary["by_position"].items()])]
    out += ["", _table(["category", "right"], [(c, _pct(b)) for c, b in summary["by_category"].items()])]
    out += ["", _table(["failure kind", "questions"], list(summary["failures"].items()))]
    out += _question_lines(rows)
    return "\n".join(out) + "\n"


def margin(product: Sequence[Mapping[str, Any]], baseline: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The product's accuracy beside the baseline's on the questions both answered: overall,
    per set / style, per wording (natural external questions) and per category (``margin`` in
    percentage points)."""
    base = {r["id"]: r for r in baseline}
    both = [r for r in product if r["id"] in base]

    def block(keyed: Any, rows: Sequence[Mapping[str, Any]] = both) -> dict[str, Any]:
        out = {}
        for value in dict.fromkeys(keyed(r) for r in rows):
            mine = [r for r in rows if keyed(r) == value]
            a, b = _accuracy(mine), _accuracy(base[r["id"]] for r in mine)
            out[value] = {"n": a["n"], "product": a["correct"], "baseline": b["correct"],
                          "margin_points": round(100 * (a["correct"] - b["correct"]) / a["n"], 1) if a["n"] else None}
        return out

    out = {"all": block(lambda r: "all")["all"] if both else {"n": 0},
           "by_set_style": block(lambda r: f"{r.get('set', 'dev')}/{r.get('style', 'closed')}"),
           "by_category": block(lambda r: r["category"])}
    worded = [r for r in both if r.get("wording")]
    if worded:
        out["by_wording"] = block(lambda r: r["wording"], worded)
    return out


def markdown_baseline(name: str, summary: Mapping[str, Any], rows: Sequence[Mapping[str, Any]],
                      margins: Mapping[str, Any]) -> str:
    """The baseline's figures and the product's margin over it, as Markdown."""
    s = summary["seconds"]
    out = [f"## Baseline: {name}", "", _table(["measure", "value"], [
        ("accuracy", _pct(summary)),
        ("seconds per question, median / p90 / p95 / max", _span(s)),
        ("model requests", summary["prompt_tokens"]["requests"]),
    ])]
    out += ["", _table(["set / style", "right", "s median / p90 / p95 / max"],
                       [(k, _pct(b), _span(b["seconds"])) for k, b in summary["by_set_style"].items()])]
    out += _wording_table(summary)

    def line(label: str, m: Mapping[str, Any]) -> tuple[Any, ...]:
        return (label, m["n"], m["product"], m["baseline"], f"{m['margin_points']:+.1f}" if m["n"] else "–")

    header = ["questions", "n", "product right", "baseline right", "margin (points)"]
    out += ["", _table(header, ([line("all", margins["all"])] if margins["all"]["n"] else [])
                       + [line(k, m) for k, m in margins["by_set_style"].items()])]
    if margins.get("by_wording"):
        out += ["", _table(["wording"] + header[1:], [line(k, m) for k, m in margins["by_wording"].items()])]
    out += ["", _table(["category"] + header[1:], [line(k, m) for k, m in margins["by_category"].items()])]
    out += ["", _table(["failure kind", "questions"], list(summary["failures"].items()))]
    out += _question_lines(rows)
    return "\n".join(out) + "\n"
