"""A comparison's world for Pilot tests: the real app on the loopback LLM server, with one OpenAI-compatible
provider offering four models, each answering from its own script (the request's `model` picks the reply)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Markdown

from tests.llm_server import LLMServer, RecordedRequest, Reply, error_reply, openai_stream
from visindigo.engine import Capability, Center, ModelInfo, Provider
from visindigo.tui.app import AppOptions, VisindigoApp
from visindigo.tui.compare.column import CompareColumn
from visindigo.tui.compare.screen import CompareScreen

MODELS = ["m-alpha", "m-beta", "m-gamma", "m-delta"]


def words(model: str, count: int = 12) -> list[str]:
    """`count` pieces of an answer that names its model in every piece."""
    return [f"{model}-word{n} " for n in range(count)]


def streamed(model: str, *, count: int = 12, delay: float = 0.05, usage: tuple[int, int] = (20, 12)) -> Reply:
    return openai_stream(words(model, count), usage=usage, delay_between=delay)


def every_model(*, count: int = 12, delay: float = 0.05) -> dict[str, Callable[[], Reply]]:
    """Replies for `scripted_center`: every model streams its own `words`."""
    return {model: (lambda model=model: streamed(model, count=count, delay=delay)) for model in MODELS}


def failing(message: str = "the model is overloaded") -> Reply:
    return error_reply(400, message)


def scripted_center(
    server: LLMServer, replies: dict[str, Callable[[], Reply]], *, center: Center | None = None, **settings: Any
) -> Center:
    """A Center (in memory unless `center` is given) with provider "lab" on the server; each model answers with
    `replies[model]()`."""

    def respond(request: RecordedRequest) -> Reply:
        model = (request.json or {}).get("model", "")
        make = replies.get(model)
        return make() if make is not None else error_reply(404, f"no such model {model}")

    server.responder = respond
    center = Center() if center is None else center
    tools = Capability.TEXT | Capability.TOOLS
    priced = {"price": {"input": 1.0, "output": 2.0}}  # dollars per million tokens, for m-alpha only
    models = [ModelInfo(model, capabilities=tools, extra=priced if model == "m-alpha" else {}) for model in MODELS]
    center.add_provider(Provider("lab", name="Lab", kind="openai", base_url=server.openai_url, api_key="sk-lab",
                                 models=models, default_model=MODELS[0], settings=dict(settings)))  # fmt: skip
    return center


def make_app(center: Center) -> VisindigoApp:
    return VisindigoApp(center, AppOptions(stream_fps=20.0))


def compare_screen(app: VisindigoApp) -> CompareScreen:
    screen = app.screen
    assert isinstance(screen, CompareScreen), f"the comparison is not on screen ({type(screen).__name__})"
    return screen


def column_text(column: CompareColumn) -> str:
    """What the column's pane shows of its answer: the streaming view's text, else the last message's view."""
    pane = column.pane
    view = pane.streaming_view or (pane.views[-1] if pane.views else None)
    markdown = view.query(Markdown) if view is not None else None
    return markdown.first().source if markdown else ""


async def wait_until(pilot: Pilot[Any], condition: Callable[[], bool], timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError("the condition was not met in time")
