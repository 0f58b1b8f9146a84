"""The token budget of one request."""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Budget"]


@dataclass(frozen=True)
class Budget:
    """Token budget of one request, from the active profile. ``max_context_tokens <= 0`` = no limit."""

    max_context_tokens: int = 0
    output_reserve: int = 0
    max_tool_result_tokens: int = 4000
    far_share: float = 0.05
    near_share: float = 0.15
    anchor_threshold: float = 0.4
    dead_topic_threshold: float = 0.4
    #: tokens of transcript one summarizer call may receive; 0 = half the context (no limit
    #: when the context is unlimited). Newest records are kept when a tier is longer.
    summary_input_tokens: int = 0
    #: the window start snaps to a grid of this share of the raw budget, so it moves in steps
    #: and the requests in between extend each other; 0 moves it with every record
    window_step: float = 0.5

    def __post_init__(self) -> None:
        for name in ("max_context_tokens", "output_reserve", "max_tool_result_tokens",
                     "summary_input_tokens"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"Budget.{name} must be a whole number ≥ 0, got {value!r}")
        for name in ("far_share", "near_share", "window_step"):
            value = getattr(self, name)
            if not 0 <= value < 1:
                raise ValueError(f"Budget.{name} must be between 0 and 1 (exclusive), got {value!r}")
        if self.far_share + self.near_share >= 1:
            raise ValueError("Budget.far_share + near_share must stay below 1 so the raw window "
                             f"keeps some room, got {self.far_share + self.near_share:g}")
        for name in ("anchor_threshold", "dead_topic_threshold"):
            value = getattr(self, name)
            if not 0 < value <= 1:
                raise ValueError(f"Budget.{name} must be in (0, 1], got {value!r}")

    def summarizer_input(self) -> int:
        """Token limit of one summarizer transcript (0 = unlimited)."""
        if self.summary_input_tokens:
            return self.summary_input_tokens
        if self.max_context_tokens <= 0:
            return 0
        return max(500, (self.max_context_tokens - self.output_reserve) // 2)

    def raw_budget(self, system_tokens: int) -> int | None:
        """Tokens left for the raw window, or ``None`` when unlimited."""
        if self.max_context_tokens <= 0:
            return None
        available = max(0, self.max_context_tokens - system_tokens - self.output_reserve)
        return available - int(available * self.far_share) - int(available * self.near_share)
