"""A model of a provider: what it can do and how big its windows are.

Below `provider` (which re-exports it), so the adapters' protocol can name models without importing the
providers that hold them.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from .capability import Capability
from .record import record


@record
class ModelInfo:
    """One model of a provider. Most endpoints do not report capabilities; the config fills them in."""

    id: str
    name: str = ""
    capabilities: Capability = Capability.TEXT
    context_window: int = 0
    max_output_tokens: int = 0
    #: Output starts inside a thought with no opening `<think>` (DeepSeek-R1 style templates).
    starts_in_thinking: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.name or self.id
