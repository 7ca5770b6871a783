"""What the Center is to the parts below it, as protocols, so that they need not import it.

A dialog looks functions, skills, MCP servers, prompts and providers up in its Center, and has it run the
dialog (`DialogHost`); the run loop and the MCP manager find the Center's tool source there (`ToolSourceHost`).
`Center` implements both; it imports the dialog, never the other way round, which keeps the engine's import
graph free of cycles (a test checks it). The summaries the store lists for the dialog tree live here too, below both.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any, Protocol

from .record import record

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from .approval import ApprovalCallback
    from .events import Event
    from .function import Function
    from .mcp_server import MCPServer
    from .paths import Paths
    from .prompt import Prompt
    from .provider import Provider
    from .skill import Skill


@record(frozen=True, slots=True)
class DialogSummary:
    """What the dialog tree needs to list a dialog without loading its messages."""

    id: str
    branch_from_id: str
    title: str
    provider_id: str = ""
    model_id: str = ""
    created_at: float = 0.0
    updated_at: float = 0.0
    message_count: int = 0


@record(frozen=True, slots=True)
class SearchHit:
    """A dialog that matches a search: the best matching message and a snippet of it.

    `highlights` are (start, end) offsets into `snippet` of the matched text, for the UI to emphasise.
    """

    dialog_id: str
    title: str
    message_index: int
    snippet: str
    highlights: list[tuple[int, int]] = field(default_factory=list)


class ToolSource(Protocol):
    """Something that turns MCP server configs into functions for a run (the MCP manager)."""

    async def functions_for(self, servers: list[MCPServer]) -> list[Function]: ...

    async def aclose(self) -> None: ...


class ToolSourceHost(Protocol):
    """Where the run loop finds the MCP manager (made on first need, with its logs in the data folder)."""

    tool_source: ToolSource | None

    @property
    def paths(self) -> Paths | None: ...


class DialogHost(ToolSourceHost, Protocol):
    """What a dialog (and its run) asks of the Center it belongs to."""

    settings: dict[str, Any]

    def get_function(self, function_id: str) -> Function | None: ...

    @property
    def function_ids(self) -> list[str]: ...

    @property
    def skills(self) -> list[Skill]: ...

    @property
    def mcp_servers(self) -> list[MCPServer]: ...

    def get_prompt(self, name: str) -> Prompt | None: ...

    @property
    def prompts(self) -> list[Prompt]: ...

    def get_provider(self, provider_id: str) -> Provider | None: ...

    @property
    def providers(self) -> list[Provider]: ...

    @property
    def default_provider(self) -> Provider | None: ...

    def run_dialog(self, dialog: Any, *, approve: ApprovalCallback | None = None) -> AsyncIterator[Event]:
        """Run `dialog` (one of this Center's): the run loop, which `Dialog.run` reaches through its Center."""
        ...
