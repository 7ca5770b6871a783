"""Model picker: providers → models with capability marks, listed from a real loopback endpoint, by key."""

from __future__ import annotations

from textual.widgets import Input, OptionList

from tests.llm_server import LLMServer, error_reply
from tests.tui.screens_host import ScreenHost
from visindigo.engine import Capability, Center, ModelInfo, Provider
from visindigo.tui.common.model_browser import capability_columns, mark_sources, model_prompt
from visindigo.tui.setup.model_picker import ModelPickerScreen

TIF = Capability.TEXT | Capability.IMAGE | Capability.TOOLS


def make_center(llm_server: LLMServer) -> Center:
    center = Center()
    center.add_provider(
        Provider(
            "loop",
            name="Loopback",
            kind="openai",
            base_url=llm_server.openai_url,
            api_key="sk-loop-secret-123456",
            models=[ModelInfo("gpt-4o", capabilities=TIF, context_window=128_000)],
        )
    )
    center.add_provider(
        Provider(
            "other",
            name="Other",
            kind="openai",
            base_url=llm_server.openai_url,
            models=[ModelInfo("small"), ModelInfo("thinker", capabilities=Capability.TEXT | Capability.REASONING)],
        )
    )
    center.providers[1].models_listed = True  # as if listed earlier this session: no second request
    return center


async def wait_listed(pilot: object, screen: ModelPickerScreen, provider: Provider) -> None:
    for _ in range(100):
        await pilot.pause(0.02)  # type: ignore[attr-defined]
        if provider.models_listed or "Could not list" in str(screen.query_one("#status").render()):
            return
    raise AssertionError("the model list never arrived")


def test_capability_marks_are_in_fixed_columns() -> None:
    assert capability_columns(TIF) == "TIF·"
    assert capability_columns(Capability.TEXT | Capability.REASONING) == "T··R"
    row = str(model_prompt(ModelInfo("m", capabilities=Capability.TEXT), current=True, required=Capability.TOOLS))
    assert row.startswith("● T···  m") and "(no tools)" in row


async def test_models_come_from_config_and_endpoint_and_enter_chooses(llm_server: LLMServer) -> None:
    llm_server.models = ["gpt-4o", "listed-a", "listed-b"]
    center = make_center(llm_server)
    app = ScreenHost(lambda: ModelPickerScreen(center, "loop", "gpt-4o"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, ModelPickerScreen)
        loop = center.get_provider("loop")
        assert loop is not None
        await wait_listed(pilot, screen, loop)
        assert screen.shown_model_ids == ["gpt-4o", "listed-a", "listed-b"]
        assert loop.get_model("gpt-4o").capabilities == TIF  # type: ignore[union-attr]  # config wins
        assert [r.path for r in llm_server.requests] == ["/v1/models"]
        assert llm_server.requests[0].headers["authorization"] == "Bearer sk-loop-secret-123456"
        assert isinstance(app.focused, OptionList) and app.focused.id == "models"
        assert app.focused.highlighted == 0  # the current model
        await pilot.press("down", "enter")
        await pilot.pause()
    assert app.results == [("loop", "listed-a")]


async def test_switch_provider_and_filter_by_keys_only(llm_server: LLMServer) -> None:
    center = make_center(llm_server)
    app = ScreenHost(lambda: ModelPickerScreen(center, "loop", "gpt-4o", required=Capability.REASONING))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, ModelPickerScreen)
        await wait_listed(pilot, screen, center.providers[0])
        await pilot.press("shift+tab", "shift+tab")  # models -> filter -> providers
        assert isinstance(app.focused, OptionList) and app.focused.id == "providers"
        await pilot.press("down", "enter")
        assert screen.provider is center.get_provider("other")
        assert screen.shown_model_ids == ["small", "thinker"]
        assert "(no reasoning)" in str(screen.query_one("#models", OptionList).get_option_at_index(0).prompt)
        await pilot.press("shift+tab", *"think")
        assert isinstance(app.focused, Input)
        assert screen.shown_model_ids == ["thinker"]
        await pilot.press("enter")
        await pilot.pause()
    assert app.results == [("other", "thinker")]
    assert len(llm_server.requests) == 1  # "other" was listed already


async def test_an_endpoint_error_is_shown_and_configured_models_stay(llm_server: LLMServer) -> None:
    llm_server.models_reply = error_reply(401, "Incorrect API key provided: sk-loop-secret-123456")
    center = make_center(llm_server)
    app = ScreenHost(lambda: ModelPickerScreen(center, "loop", "gpt-4o"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, ModelPickerScreen)
        await wait_listed(pilot, screen, center.providers[0])
        status = str(screen.query_one("#status").render())
        assert "Could not list models" in status and "showing the configured ones" in status
        assert "sk-loop-secret-123456" not in status
        assert screen.shown_model_ids == ["gpt-4o"]
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [None]


async def test_ctrl_r_lists_again_after_a_failure(llm_server: LLMServer) -> None:
    llm_server.models_reply = error_reply(503, "overloaded")
    center = make_center(llm_server)
    app = ScreenHost(lambda: ModelPickerScreen(center, "loop"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, ModelPickerScreen)
        loop = center.providers[0]
        await wait_listed(pilot, screen, loop)
        assert not loop.models_listed
        llm_server.models_reply = None
        llm_server.models = ["fresh"]
        await pilot.press("ctrl+r")
        await wait_listed(pilot, screen, loop)
        assert screen.shown_model_ids == ["gpt-4o", "fresh"]


async def test_no_providers_says_what_to_do() -> None:
    app = ScreenHost(lambda: ModelPickerScreen(Center()))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "No providers are configured" in str(app.screen.query_one("#status").render())
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [None]


async def test_without_a_chosen_model_the_one_the_dialog_would_use_is_marked(llm_server: LLMServer) -> None:
    center = make_center(llm_server)
    app = ScreenHost(lambda: ModelPickerScreen(center, "other", "", required=Capability.REASONING))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        models = app.screen.query_one("#models", OptionList)
        prompts = [str(models.get_option_at_index(i).prompt) for i in range(models.option_count)]
        assert models.highlighted == 1
    assert prompts[1].startswith("● ") and not prompts[0].startswith("●")


def test_where_each_mark_came_from_is_said() -> None:
    configured = ModelInfo("gpt-4o", capabilities=TIF)
    assert mark_sources(configured) == "text, image, tools: config"
    listed = ModelInfo("qwen3", capabilities=Capability.TEXT | Capability.TOOLS)
    listed.extra["capability_sources"] = {"text": "assumed", "tools": "learnt: the server rejected tools"}
    listed.capabilities = Capability.TEXT
    assert mark_sources(listed) == "text: assumed"


async def test_the_highlighted_models_mark_sources_show_under_the_list(llm_server: LLMServer) -> None:
    llm_server.models = ["gpt-4o", "listed-a"]
    center = make_center(llm_server)
    app = ScreenHost(lambda: ModelPickerScreen(center, "loop", "gpt-4o"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, ModelPickerScreen)
        await wait_listed(pilot, screen, center.get_provider("loop"))  # type: ignore[arg-type]
        await pilot.pause()
        assert "Marks from text, image, tools: config" in str(screen.query_one("#sources").render())
        await pilot.press("down")
        await pilot.pause()
        assert "Marks from text, tools: assumed" in str(screen.query_one("#sources").render())


async def test_each_model_shows_its_window_and_where_it_came_from(llm_server: LLMServer) -> None:
    """Issue 25 item 2 / 27: llama-server's /props says 2048 a slot; the picker showed nothing of it."""
    from tests.engine.context.servers import LLAMA_MODEL, serve_llama

    serve_llama(llm_server, 8192, per_slot=2048)
    center = Center()
    llama = Provider("llama", name="llama.cpp", kind="openai", base_url=llm_server.openai_url,
                     settings={"server": "llama.cpp"})  # fmt: skip
    center.add_provider(llama)
    app = ScreenHost(lambda: ModelPickerScreen(center, "llama", ""))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, ModelPickerScreen)
        await wait_listed(pilot, screen, llama)
        await pilot.pause()
        models = screen.query_one("#models", OptionList)
        assert "2k" in str(models.get_option_at_index(0).prompt) and LLAMA_MODEL in str(
            models.get_option_at_index(0).prompt
        )
        models.highlighted = 0
        await pilot.pause()
        shown = str(screen.query_one("#sources").render())
        assert "window 2,048 tokens from server: llama.cpp /props (n_ctx of one slot)" in shown
    unknown = ModelInfo("m")
    from visindigo.tui.common.model_browser import window_source

    assert window_source(unknown) == "window unknown (no server or config said it)"
