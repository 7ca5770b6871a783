"""Wire-format adapters: OpenAI-compatible chat completions, Anthropic Messages, and a scripted provider.

`Provider.adapter` picks the adapter for a provider's kind; the run loop only sees the typed parts of
`base`. The HTTP adapters are imported on first use, and so is every name here (PEP 562): `visindigo ask` loads
this package to send its question before asyncio is loaded (`early`), which needs neither the stream parts of
`base` nor the scripted provider (which needs asyncio).
"""

from typing import TYPE_CHECKING

from ..lazy_names import names_on_first_use

if TYPE_CHECKING:
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

#: Every name, loaded on first use, and the module it comes from.
_LAZY = {
    **dict.fromkeys(
        (
            "Adapter",
            "ChatRequest",
            "FinishPart",
            "MovedToReasoningPart",
            "ProviderError",
            "ReasoningPart",
            "StreamPart",
            "TextPart",
            "ToolCallPart",
            "UsagePart",
        ),
        "base",
    ),
    "demo_functions": "demo",
    "demo_provider": "demo",
    "ensure_models": "models",
    "list_models": "models",
    "merge_models": "models",
    "Pause": "scripted",
    "ScriptedAdapter": "scripted",
    "scripted_provider": "scripted",
    "text_turn": "scripted",
}


__getattr__ = names_on_first_use(__name__, _LAZY)


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
