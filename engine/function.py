"""Functions: local capabilities the model may call (spec file 000).

`Function.id` is what the model sees as the tool's name, so it must satisfy the servers' rule
`^[a-zA-Z0-9_-]{1,64}$`; `check_function_id` enforces it when a function is added, turning what would be an
HTTP 400 from the server into a clear error at the place the mistake was made.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from typing import Any

FUNCTION_ID_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


class InvalidFunctionId(ValueError):
    """A function id the chat APIs would reject."""


def check_function_id(function_id: str) -> str:
    """Return the id unchanged, or raise `InvalidFunctionId` saying what is wrong with it."""
    if FUNCTION_ID_PATTERN.fullmatch(function_id):
        return function_id
    if not function_id:
        reason = "it is empty"
    elif len(function_id) > 64:
        reason = f"it is {len(function_id)} characters long (at most 64)"
    else:
        bad = sorted({c for c in function_id if not re.fullmatch(r"[a-zA-Z0-9_-]", c)})
        reason = "it contains " + ", ".join(repr(c) for c in bad)
    raise InvalidFunctionId(
        f"function id {function_id!r} is not accepted by chat APIs: {reason}; "
        "use letters, digits, '_' and '-' only, up to 64 characters (the display name may be anything)"
    )


class Function(ABC):
    """A tool the model can call.

    Subclasses implement the five members of the spec. `invoke` returns a JSON object that is sent back to
    the model as compact JSON; a failure should be *returned* as a description (the model can try another
    way), not raised — though the run loop turns a raised exception into such a result anyway.

    `invoke_async` deliberately differs from the spec's default: instead of running `invoke` on the calling
    stack, it runs it in a worker thread, so a slow local tool never freezes the event loop (and the screen).
    Override it for functions that are natively asynchronous.
    """

    #: Ask the user before running it (destructive or costly tools). MCP tools ask by default.
    requires_approval: bool = False

    @property
    @abstractmethod
    def id(self) -> str:
        """The protocol name; matches `^[a-zA-Z0-9_-]{1,64}$` and stays stable within a dialog."""

    @property
    @abstractmethod
    def name(self) -> str:
        """A human-readable name, for display only."""

    @property
    @abstractmethod
    def description(self) -> str:
        """What it does, when to use it and when not: the model's only basis for choosing it."""

    @property
    @abstractmethod
    def parameter_schema(self) -> dict[str, Any]:
        """A JSON Schema object for the arguments (usually type object with properties and required)."""

    @abstractmethod
    def invoke(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Run synchronously with the model's arguments."""

    async def invoke_async(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Run without blocking the event loop (in a thread by default)."""
        import asyncio  # here: `visindigo ask` sends its question before asyncio is loaded (ask_early)

        return await asyncio.to_thread(self.invoke, arguments)

    def declaration(self) -> dict[str, Any]:
        """Name, description and parameters as the providers' tool declarations need them."""
        return {"name": self.id, "description": self.description, "parameters": self.parameter_schema}
