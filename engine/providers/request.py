"""What a request to a provider is made of, apart from the stream parts an adapter yields (`base`): the round's
`ChatRequest`, its output limit, the provider as an adapter sees it (`Endpoint`) and `ProviderError`.

A module of its own so that `visindigo ask` can build its first request (`run_setup`, the wire formats' `*_body`
modules) without defining the stream parts' dataclasses first (`engine.providers.early`); `base` re-exports
every name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from ..message import Message
from ..model_info import ModelInfo

__all__ = ["ChatRequest", "Endpoint", "ProviderError", "output_limit"]


@dataclass
class ChatRequest:
    """Everything an adapter needs for one round.

    `messages` are the dialog's messages (copies) without the skills' system prompt, which is `system`.
    `tools` are declarations as `Function.declaration()` returns them: name, description, parameters.
    `settings` are the provider's settings (see docs/providers.md for the keys each adapter reads).
    """

    model: ModelInfo
    system: str = ""
    messages: list[Message] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    provider_id: str = ""
    #: The dialog's generation parameters that are set (see `engine.parameters`); sent only when present.
    parameters: dict[str, Any] = field(default_factory=dict)
    #: The first round of a run: a forced `tool_choice` applies to it only, later rounds use "auto".
    first_round: bool = True


def output_limit(request: ChatRequest) -> int:
    """The output limit the request carries: the dialog's `max_tokens`, else the provider's, else the model's
    `max_output_tokens`; 0 for none (the Messages adapter then sends its default)."""
    value = request.parameters.get("max_tokens") or request.settings.get("max_tokens")
    value = value or request.model.max_output_tokens
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


class ProviderError(Exception):
    """A failure the user can act on; `str(error)` is the message to show.

    Built only through code that redacts the API key, so the message is safe for a dialog, a log or the
    screen. `retryable` is True for failures that may pass when tried again later (429, 5xx, overload).
    """

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        status: int | None = None,
        retry_after: float | None = None,
        in_stream: bool = False,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        #: The server reported the error inside the answer's stream (HTTP 200), not with a status: only the run
        #: loop can retry it, and only while nothing of the answer has arrived.
        self.in_stream = in_stream
        self.status = status
        self.retry_after = retry_after


class Endpoint(Protocol):
    """What an adapter reads of its provider (a `Provider`; named here so the adapters need not import it, which
    lets `Provider.adapter` make one on first use without an import cycle)."""

    name: str
    kind: str
    base_url: str
    api_key_env: str
    connect_timeout: float
    read_timeout: float
    settings: dict[str, Any]

    @property
    def api_key(self) -> str | None: ...

    def request_headers(self) -> dict[str, str]: ...

    def secrets(self) -> list[str]: ...

    def key_problem(self) -> str | None: ...
