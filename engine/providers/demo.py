"""The demo provider behind `visindigo --demo`: a deterministic model that shows everything the app can show.

Every answer streams reasoning into the drawer and Markdown (a heading, a list, a code block) into the pane;
the first answer of a dialog, and any question about the weather, calls the local `get_weather` tool and
reads its result back. Answers rotate through variants by request count, so a regenerated answer (a new
branch) reads differently from the one it replaces. With `delay=0` the output is instant and the same on every
run, which is what snapshot tests need.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..capability import Capability
from ..commands import JSONSchema, command
from ..function import Function
from ..message import Message, Role
from ..provider import ModelInfo, Provider
from .base import ChatRequest, FinishPart, ReasoningPart, TextPart, ToolCallPart, UsagePart
from .scripted import ScriptedAdapter, TurnItem

__all__ = ["DEMO_MODEL_ID", "DEMO_PROVIDER_ID", "demo_functions", "demo_provider", "get_weather"]

DEMO_PROVIDER_ID = "demo"
DEMO_MODEL_ID = "visindigo-demo"

_CONDITIONS = ("sunny", "partly cloudy", "light rain", "clear skies", "windy")


@command(
    names=["get_weather"],
    description="Current weather for a city (demo data: made up, but the same city always gets the same answer).",
    parameters={"city": JSONSchema(type=JSONSchema.Type.STRING, description="City name, e.g. Kyoto", required=True)},
)
def get_weather(city: str) -> dict[str, Any]:
    """Deterministic fake weather, so the demo needs no network."""
    seed = sum(ord(c) for c in city.strip().lower())
    return {
        "city": city.strip() or "Kyoto",
        "temperature_c": 8 + seed % 17,
        "conditions": _CONDITIONS[seed % len(_CONDITIONS)],
        "humidity_percent": 40 + seed % 45,
    }


def demo_functions() -> list[Function]:
    """The local tools the demo model calls."""
    return [get_weather]


def demo_provider(delay: float = 0.02) -> Provider:
    """A provider whose one model answers any message; `delay` seconds pass between streamed pieces."""
    model = ModelInfo(
        DEMO_MODEL_ID,
        name="Visindigo demo",
        capabilities=Capability.TEXT | Capability.IMAGE | Capability.TOOLS | Capability.REASONING,
        context_window=32768,
    )
    provider = Provider(DEMO_PROVIDER_ID, kind="scripted", name="Demo", models=[model], default_model=model.id)
    provider.models_listed = True
    provider.attach_adapter(ScriptedAdapter(_DemoModel().answer, delay=delay, models=[model]))
    return provider


class _DemoModel:
    """Chooses each answer from the request, the way a model would, but deterministically."""

    def __init__(self) -> None:
        self.requests = 0

    def answer(self, request: ChatRequest) -> list[TurnItem]:
        variant = self.requests
        self.requests += 1
        messages = request.messages
        question = _last_user_text(messages)
        offers_weather = any(tool.get("name") == "get_weather" for tool in request.tools)
        if messages and messages[-1].role is Role.TOOL:
            return self._after_tool(request, question, variant)
        first_answer = not any(m.role is Role.ASSISTANT for m in messages)
        if offers_weather and (first_answer or "weather" in question.lower()):
            return self._call_tool(request, question, variant)
        return self._plain_answer(request, question, variant)

    def _call_tool(self, request: ChatRequest, question: str, variant: int) -> list[TurnItem]:
        position = len(request.messages)
        city = _city_in(question)
        thought = (
            f"The user wrote: “{_short(question)}”. A good demo answer shows a tool call, so I will look up "
            f"the weather in {city} with get_weather, then answer with a heading, a list and a code block."
        )
        text = f"Let me check the weather in **{city}** first."
        call = ToolCallPart(f"call_demo_{position}_{variant}", "get_weather", json.dumps({"city": city}))
        return [
            *_pieces(thought, ReasoningPart),
            *_pieces(text, TextPart),
            call,
            UsagePart(input_tokens=_prompt_tokens(request), output_tokens=len(thought + text) // 4),
            FinishPart("tool_calls"),
        ]

    def _after_tool(self, request: ChatRequest, question: str, variant: int) -> list[TurnItem]:
        weather = _tool_result(request.messages[-1])
        city = str(weather.get("city", "Kyoto"))
        temperature = weather.get("temperature_c", "?")
        conditions = weather.get("conditions", "unknown")
        humidity = weather.get("humidity_percent", "?")
        thought = f"get_weather answered {temperature} °C and {conditions} for {city}. Now I write the answer."
        openings = (
            f"## Weather in {city}\n\nHere is what the demo tool reported:\n\n",
            f"## {city} right now\n\nThe (made-up) forecast says:\n\n",
            f"## A look at {city}\n\nFresh from `get_weather`:\n\n",
        )
        text = (
            openings[variant % len(openings)]
            + f"- **Temperature:** {temperature} °C\n"
            + f"- **Conditions:** {conditions}\n"
            + f"- **Humidity:** {humidity} %\n\n"
            + "The same call from Python:\n\n"
            + "```python\n"
            + "from visindigo.engine.providers.demo import get_weather\n\n"
            + f"print(get_weather(city={city!r}))\n"
            + "```\n\n"
            + f"You asked: “{_short(question)}” — this is the demo model, so try regenerating the answer "
            + "(a new branch) or asking about the weather somewhere else."
        )
        return [
            *_pieces(thought, ReasoningPart),
            *_pieces(text, TextPart),
            UsagePart(input_tokens=_prompt_tokens(request), output_tokens=len(thought + text) // 4),
            FinishPart("stop"),
        ]

    def _plain_answer(self, request: ChatRequest, question: str, variant: int) -> list[TurnItem]:
        thought = f"The user wrote: “{_short(question)}”. No tool is needed; I answer in Markdown."
        bodies = (
            "## Echo, with structure\n\nI am the demo model, so I cannot really think about it, but I can show "
            "what an answer looks like:\n\n- a heading\n- this list\n- a code block\n\n",
            "## Another take\n\nA regenerated answer is a new branch of the dialog; this one differs on purpose:"
            "\n\n1. step through branches with the arrows\n2. compare the answers\n3. keep the one you like\n\n",
            "## Third variant\n\nDemo answers rotate, so every branch reads differently.\n\n"
            "- reasoning streams into the drawer\n- Markdown renders as it arrives\n\n",
        )
        words = len(question.split())
        text = (
            bodies[variant % len(bodies)]
            + "```text\n"
            + f"{_short(question)}\n"
            + "```\n\n"
            + f"Your message has {words} word{'s' if words != 1 else ''}. Ask about the weather to see a tool call."
        )
        return [
            *_pieces(thought, ReasoningPart),
            *_pieces(text, TextPart),
            UsagePart(input_tokens=_prompt_tokens(request), output_tokens=len(thought + text) // 4),
            FinishPart("stop"),
        ]


def _prompt_tokens(request: ChatRequest) -> int:
    """The prompt's size as a server would report it: the whole request (system, tools, every message) at about
    four bytes a token and four tokens around each message. The demo once reported the last question alone, so
    the context meter, anchored on reported usage, showed a long dialog as a few dozen tokens."""
    parts = [request.system, json.dumps(request.tools) if request.tools else ""]
    parts += [f"{m.content}{m.tool_calls}" for m in request.messages]
    return sum(len(part.encode()) for part in parts) // 4 + 4 * len(request.messages)


def _pieces(text: str, kind: type[TextPart] | type[ReasoningPart]) -> list[TurnItem]:
    """Split into small streamed pieces (two words each) the way a server sends tokens."""
    words = re.findall(r"\S+\s*|\s+", text)
    return [kind("".join(words[i : i + 2])) for i in range(0, len(words), 2)]


def _last_user_text(messages: list[Message]) -> str:
    for message in reversed(messages):
        if message.role in (Role.USER, Role.PROMPT):
            return message.content
    return ""


def _tool_result(message: Message) -> dict[str, Any]:
    try:
        value = json.loads(message.content)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _city_in(question: str) -> str:
    match = re.search(r"\b(?:in|for|at)\s+([A-Z][\w-]+(?:\s+[A-Z][\w-]+)?)", question)
    return match.group(1) if match else "Kyoto"


def _short(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
