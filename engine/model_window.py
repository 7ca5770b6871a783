"""A model's context window as known this session, and where the figure came from (`ModelInfo.extra`).

Apart from `providers.windows`, which asks the servers, so that the status line's meter can read a window
without loading the provider adapters before the first frame.
"""

from __future__ import annotations

from .model_info import ModelInfo

__all__ = ["CONFIG", "SOURCE_KEY", "UNKNOWN", "from_server", "set_window", "settled", "window"]

SOURCE_KEY = "context_source"
CONFIG = "config"
UNKNOWN = "unknown"


def window(model: ModelInfo) -> tuple[int, str]:
    """The model's window in tokens (0: unknown) and where the figure came from."""
    source = model.extra.get(SOURCE_KEY)
    if model.context_window > 0:
        return model.context_window, str(source) if isinstance(source, str) and source else CONFIG
    return 0, UNKNOWN


def set_window(model: ModelInfo, tokens: int, source: str) -> None:
    model.context_window = tokens
    model.extra[SOURCE_KEY] = source


def from_server(model: ModelInfo) -> bool:
    """Whether the model's window was told by its server (which outranks the config)."""
    source = model.extra.get(SOURCE_KEY)
    return isinstance(source, str) and source.startswith(("server", "learnt"))


def settled(model: ModelInfo) -> bool:
    """Whether asking the server again would tell nothing new: its server told the window (or it was sent to
    Ollama), or the server was asked and said nothing ("unknown"). So a window costs one request per model."""
    source = model.extra.get(SOURCE_KEY)
    return from_server(model) or source == UNKNOWN or (isinstance(source, str) and source.startswith("sent"))
