"""What the model sees: the system prompt, the history within a token budget, guard envelopes,
and what the model may learn from a turn (extraction) and how memory ages (lifecycle)."""
from __future__ import annotations

from .budget import Budget
from .builder import Built, ContextBuilder
from .extraction import ExtractionResult, Extractor, auto_extract_default, auto_title_default
from .guard import TagCollision, clean_reply, new_tag, strip_think_tags, wrap
from .lifecycle import run_lifecycle
from .tokens import estimate_tokens

__all__ = [
    "Budget", "Built", "ContextBuilder", "Extractor", "ExtractionResult", "run_lifecycle",
    "auto_extract_default", "auto_title_default", "TagCollision", "clean_reply", "new_tag",
    "strip_think_tags", "wrap", "estimate_tokens",
]
