"""A host that answers a server's questions as a person would, and a Center whose model calls one tool."""

from __future__ import annotations

from tests.llm_server import LLMServer, openai_stream, openai_tool_call
from visindigo.engine import Capability, Center, MCPServer, ModelInfo, Provider, Role
from visindigo.engine.events import Event
from visindigo.engine.mcp import MCPManager
from visindigo.engine.mcp.host import ElicitationAnswer, ElicitationRequest, SamplingDecision, SamplingRequest


class Host:
    """Answers like a person would, and remembers what it was shown.

    `queued` answers are given first, one per question (a person correcting a form); then `elicit_answer`.
    """

    def __init__(self, elicit: ElicitationAnswer | None = None, sampling: SamplingDecision = SamplingDecision.DENY):
        self.elicit_answer = elicit or ElicitationAnswer("decline")
        self.queued: list[ElicitationAnswer] = []
        self.sampling = sampling
        self.elicited: list[ElicitationRequest] = []
        self.sampled: list[SamplingRequest] = []

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        self.elicited.append(request)
        return self.queued.pop(0) if self.queued else self.elicit_answer

    async def approve_sampling(self, request: SamplingRequest) -> SamplingDecision:
        self.sampled.append(request)
        return self.sampling


class FormsOnlyHost(Host):
    """A host that fills forms but cannot show a page to open (a script, say)."""

    url_elicitation = False


def center_with(llm_server: LLMServer, manager: MCPManager, server: MCPServer) -> Center:
    center = Center()
    models = [
        ModelInfo("big-model", capabilities=Capability.TEXT | Capability.TOOLS),
        ModelInfo("small-model", capabilities=Capability.TEXT | Capability.TOOLS),
    ]
    center.add_provider(Provider("loop", kind="openai", base_url=llm_server.openai_url, api_key="sk-t", models=models))
    center.tool_source = manager
    manager.center = center
    center.add_mcp(server)
    return center


async def run_tool(llm_server: LLMServer, center: Center, tool: str, arguments: str = "{}") -> tuple[list[Event], str]:
    """One run in which the model calls `tool`; returns the events and the tool result the model got."""
    llm_server.queue(
        openai_stream(tool_calls=openai_tool_call("c1", tool, [arguments]), finish="tool_calls"),
        openai_stream(["ok"]),
    )
    dialog = center.create_dialog()
    dialog.model_id = "big-model"
    dialog.append_message(Role.USER, "go")
    events = [event async for event in dialog.run()]
    tools = [m for m in dialog.messages if m.role is Role.TOOL]
    assert len(tools) == 1, events
    return events, tools[0].content
