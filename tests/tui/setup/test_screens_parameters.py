"""The dialog's parameters screen: opened with f10 (or the palette), checked by the engine's rules, stored with
the dialog, shown in the status line, sent only when set."""

from __future__ import annotations

from textual.widgets import Input, Select

from tests.llm_server import LLMServer, openai_stream
from tests.tui.helpers import answer, main_screen, make_app, settle, type_text
from visindigo.engine import Center, ModelInfo, Provider, Role
from visindigo.engine.commands import command
from visindigo.tui.app import AppOptions, VisindigoApp
from visindigo.tui.setup.parameters import ParametersScreen, join_stops, split_stops


@command()
def get_time(tz: str) -> dict[str, str]:
    """The time in a time zone."""
    return {"tz": tz, "time": "12:00"}


def test_stop_sequences_round_trip_through_one_line() -> None:
    stops = ["END", "a,b", "\n\nUser:"]
    assert join_stops(stops) == "END, a\\,b, \\n\\nUser:"
    assert split_stops(join_stops(stops)) == stops
    assert split_stops(" , ,") == []


async def test_f10_sets_parameters_that_the_status_line_shows_and_the_dialog_keeps() -> None:
    app = make_app([answer("ok")])
    app.center.add_function(get_time)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(app)
        await pilot.press("f10")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, ParametersScreen)
        await pilot.press(*"256", "tab", *"0.3", "tab", "tab", *"42", "tab", *"END, \\n\\nUser:")
        form.query_one("#tool_choice", Select).value = "get_time"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen
        assert screen.dialog.parameters == {
            "max_tokens": 256,
            "temperature": 0.3,
            "seed": 42,
            "stop": ["END", "\n\nUser:"],
            "tool_choice": "get_time",
        }
        status = str(screen.status_line.content)
        assert "max 256 · t 0.3 · seed 42 · stop 2 · tool get_time" in status
        await pilot.press("f10")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, ParametersScreen)
        assert form.query_one("#max_tokens", Input).value == "256"  # what is stored shows again
        assert form.query_one("#stop", Input).value == "END, \\n\\nUser:"
        await pilot.press("escape")
        await pilot.pause()
        assert screen.dialog.parameters["seed"] == 42  # cancel changes nothing


async def test_a_bad_value_is_named_and_nothing_is_saved() -> None:
    app = make_app([answer("ok")])
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(app)
        await pilot.press("f10")
        await pilot.pause()
        await pilot.press("tab", *"7")  # temperature 7
        await pilot.press("ctrl+s")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, ParametersScreen)
        assert "temperature must be between 0 and 2" in str(form.query_one("#error").render())
        await pilot.press("escape")
        await pilot.pause()
        assert screen.dialog.parameters == {}


async def test_parameters_go_out_with_the_request_and_are_stored_with_the_dialog(llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["fine"]))
    center = Center()
    center.add_provider(Provider("loop", base_url=llm_server.openai_url, models=[ModelInfo("m")]))
    center.default_provider_id = "loop"
    app = VisindigoApp(center, AppOptions(stream_fps=30.0))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(app)
        await pilot.press("f10")
        await pilot.pause()
        await pilot.press(*"32", "ctrl+s")
        await pilot.pause()
        await type_text(pilot, "hello")
        await pilot.press("enter")
        await settle(pilot)
        assert screen.dialog.last_message.role is Role.ASSISTANT
    body = llm_server.requests[-1].json
    assert body["max_tokens"] == 32 and "temperature" not in body and "tool_choice" not in body
    assert screen.dialog.to_json()["parameters"] == {"max_tokens": 32}


async def test_the_form_says_what_llama_cpp_does_with_a_forced_tool_choice() -> None:
    """Issue 25 §5: llama.cpp's server ignores a named `tool_choice`; the engine sends "required" with only the
    chosen tool, and the form says so where the choice is made — and only for such a server."""
    for server, told in (("llama.cpp", True), ("vllm", False)):
        center = Center()
        center.add_provider(
            Provider("local", base_url="http://127.0.0.1:9/v1", models=[ModelInfo("m")], settings={"server": server})
        )
        center.default_provider_id = "local"
        center.add_function(get_time)
        app = VisindigoApp(center, AppOptions(stream_fps=30.0))
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("f10")
            await pilot.pause()
            form = app.screen
            assert isinstance(form, ParametersScreen)
            notes = form.query("#tool-choice-note")
            if told:
                text = str(notes.first().render())
                assert "llama.cpp's server does not take a named tool" in text
                assert '"required" with only that tool offered (first reply only)' in text
            else:
                assert not notes
