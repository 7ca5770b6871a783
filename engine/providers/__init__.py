"""Wire-format adapters: OpenAI-compatible chat completions, Anthropic Messages, and a scripted provider.

`Provider.adapter` picks the adapter for a provider's kind; the run loop only sees the typed parts of
`base`. The HTTP adapters are imported on first use.
"""

from .base import (
    Adapter,
    ChatRequest,
    FinishPart,
    MovedToReasoningPart,
    ProviderError,
    ReasoningPart,
    StreamPart,
    TextPart,
    ToolCallPart,
    UsagePart,
)
from .demo import demo_functions, demo_provider
from .models import ensure_models, list_models, merge_models
from .scripted import Pause, ScriptedAdapter, scripted_provider, text_turn

__all__ = [
    "Adapter",
    "ChatRequest",
    "FinishPart",
    "MovedToReasoningPart",
    "Pause",
    "ProviderError",
    "ReasoningPart",
    "ScriptedAdapter",
    "StreamPart",
    "TextPart",
    "ToolCallPart",
    "UsagePart",
    "demo_functions",
    "demo_provider",
    "ensure_models",
    "list_models",
    "merge_models",
    "scripted_provider",
    "text_turn",
]
