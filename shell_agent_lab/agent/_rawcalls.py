"""Tool calls the model wrote out as text that could not be taken as calls (pure).

:mod:`..llm.lenient` turns well-formed ones into real calls; what is left here (a call of a
tool not offered, arguments that fail the schema, JSON cut off by the token limit, an empty
``<tool_call>`` tag) must never be shown as the answer: :func:`strip_raw_calls` removes it.
"""
from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["strip_raw_calls"]

_TAGGED = re.compile(r"<(tool_call|tools|function_call)>.*?(?:</\1>|\Z)", re.S | re.I)
_STRAY_TAG = re.compile(r"</?(tool_call|tools|function_call)>", re.I)
_FENCED = re.compile(r"```[ \t]*(?:json)?[ \t]*\n?(.*?)(?:```|\Z)", re.S | re.I)
#: the start of a call object: {"name": "…", "arguments" (or parameters/args/input)
_CALL_START = re.compile(r"\{\s*\"(?:name|function|tool)\"\s*:\s*(?:\"[^\"]*\"|\{)\s*,?\s*"
                         r"(?:\"(?:arguments|parameters|args|input|name)\"\s*:)?", re.S)
_decoder = json.JSONDecoder()


def _is_call(value: Any) -> bool:
    if isinstance(value, list):
        return bool(value) and all(_is_call(v) for v in value)
    if not isinstance(value, dict):
        return False
    body: dict[str, Any] = value["function"] if isinstance(value.get("function"), dict) else value
    name = body.get("name") or body.get("tool") or body.get("tool_name")
    return isinstance(name, str) and any(k in body for k in ("arguments", "parameters", "args", "input"))


def _strip_bare(text: str) -> str:
    out: list[str] = []
    cursor = 0
    for match in _CALL_START.finditer(text):
        start = match.start()
        if start < cursor:
            continue
        try:
            value, end = _decoder.raw_decode(text, start)
        except ValueError:
            # cut off mid-object (the token limit, or a repetition cut): the rest is the call
            out.append(text[cursor:start])
            cursor = len(text)
            break
        if _is_call(value):
            out.append(text[cursor:start])
            cursor = end
    out.append(text[cursor:])
    return "".join(out)


def strip_raw_calls(text: str) -> str:
    """``text`` without tool calls written as JSON (tagged, fenced or bare, whole or cut off)."""
    if not text or not any(mark in text for mark in ("{", "<tool", "<function")):
        return text
    cleaned = _TAGGED.sub("", text)

    def fenced(match: re.Match[str]) -> str:
        body = match.group(1).strip()
        if not body.startswith(("{", "[")):
            return match.group(0)
        try:
            value = json.loads(body)
        except ValueError:
            return "" if _CALL_START.match(body) else match.group(0)
        return "" if _is_call(value) else match.group(0)

    cleaned = _FENCED.sub(fenced, cleaned)
    cleaned = _strip_bare(cleaned)
    cleaned = _STRAY_TAG.sub("", cleaned)
    if cleaned == text:
        return text
    return re.sub(r"\n{3,}", "\n\n", cleaned).strip()
