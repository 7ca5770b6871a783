"""What a server may ask of the person at the keyboard, as plain values, and who answers.

A server can ask for input mid-call (elicitation) or for a completion from the client's model (sampling).
The engine never answers either on its own: the app (or a script) installs an `MCPHost` on the manager, and
only the capabilities that host can answer are declared in the handshake. Without a host, a server is told
the client does not support them — the same as a person declining, never a silent "yes".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal, Protocol, runtime_checkable

ElicitationAction = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True, slots=True)
class ElicitationRequest:
    """A server asks the user for input: a form from `schema` (form mode) or a page to open (URL mode)."""

    server: str
    message: str
    mode: Literal["form", "url"] = "form"
    #: The requested JSON Schema (an object of flat, primitive properties) in form mode.
    schema: dict[str, Any] = field(default_factory=dict)
    url: str = ""
    elicitation_id: str = ""
    #: Why the host's previous answer was not sent (it does not match `schema`): shown above the form, which
    #: opens filled with `refused`, so the user corrects the answer instead of typing it again.
    problem: str = ""
    refused: dict[str, Any] = field(default_factory=dict)
    #: URL mode after the server refused a tool call until the page is visited (error -32042): the tool's name.
    #: Accept then means "I have finished on that page" and the call is made again; "" for `elicitation/create`.
    required_by: str = ""


@dataclass(frozen=True, slots=True)
class ElicitationAnswer:
    """The user's answer; `content` only with "accept" in form mode."""

    action: ElicitationAction
    content: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class SamplingMessage:
    role: str
    text: str
    #: (mime type, base64 data) of each image in the message.
    images: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class SamplingRequest:
    """A server asks for a completion from the client's model; shown to the user before anything runs."""

    server: str
    messages: tuple[SamplingMessage, ...]
    system_prompt: str = ""
    max_tokens: int = 0
    model_hints: tuple[str, ...] = ()
    cost_priority: float | None = None
    speed_priority: float | None = None
    intelligence_priority: float | None = None
    temperature: float | None = None
    stop_sequences: tuple[str, ...] = ()
    #: Model and provider the client would use (filled in before the user is asked).
    provider_id: str = ""
    model_id: str = ""


class SamplingDecision(Enum):
    ALLOW_ONCE = "allow_once"
    ALLOW_FOR_SERVER = "allow_for_server"
    DENY = "deny"


@runtime_checkable
class MCPHost(Protocol):
    """Answers what servers ask of the user: the app shows a modal for each, a script answers in code.

    `elicit` gets forms and pages to open (URL mode) alike. A host that cannot show a page — a script that
    only fills forms — says so with a class attribute `url_elicitation = False` (or raises
    `NotImplementedError` for a URL request): it is then never asked, and the model is told the address to
    pass on to the user (`url_elicitation`).
    """

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer: ...

    async def approve_sampling(self, request: SamplingRequest) -> SamplingDecision: ...
