"""The parameters of one dialog: output limit, temperature, top_p, seed, stop sequences, reasoning effort and
which tool the model must call.

An empty field is "not set": the request then leaves it out and the server's default holds. What is set is
stored with the dialog, exported with it and shown compactly in the status line. The checks are the engine's
(`engine.parameters.clean_parameters`), so the screen can never save what a run would refuse. A forced tool
(`required` or one named tool) applies to the first round of each run; that is how a user tries a tool with a
model that rarely calls one (llama.cpp's server forces it through a grammar).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Select, Static

from visindigo.engine.parameters import REASONING_EFFORTS, TOOL_CHOICE_MODES, ParameterError, clean_parameters
from visindigo.tui.common.modal import FORM_CSS, FormFrame, field_row

__all__ = ["ParametersScreen", "join_stops", "split_stops"]

_NUMBER_FIELDS = (
    ("max_tokens", "Output limit", "tokens, e.g. 512 (empty: the server's default)"),
    ("temperature", "Temperature", "0 to 2"),
    ("top_p", "Top p", "0 to 1"),
    ("seed", "Seed", "a whole number, for repeatable answers"),
)


def split_stops(text: str) -> list[str]:
    """Stop sequences typed as one line: separated by commas, `\\,` for a comma and `\\n` for a line end."""
    pieces, current, escaped = [], "", False
    for char in text:
        if escaped:
            current += {"n": "\n", "t": "\t"}.get(char, char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ",":
            pieces.append(current)
            current = ""
        else:
            current += char
    pieces.append(current + ("\\" if escaped else ""))
    return [piece.strip(" ") for piece in pieces if piece.strip(" ")]


def join_stops(stops: Iterable[str]) -> str:
    """The inverse of `split_stops`, for showing stored sequences in the field."""
    escapes = (("\\", "\\\\"), (",", "\\,"), ("\n", "\\n"), ("\t", "\\t"))
    shown = []
    for stop in stops:
        for raw, escaped in escapes:
            stop = stop.replace(raw, escaped)
        shown.append(stop)
    return ", ".join(shown)


class ParametersScreen(FormFrame[dict[str, Any] | None]):
    """Dismisses with the checked parameters (possibly empty: all unset), or None when cancelled."""

    DEFAULT_CSS = (
        FORM_CSS
        + """
    ParametersScreen > .frame {
        width: 84;
        padding: 1 1 0 1;
    }
    ParametersScreen #error {
        margin-top: 1;
        height: auto;
    }
    """
    )

    def __init__(
        self,
        parameters: dict[str, Any],
        tool_names: Iterable[str] = (),
        *,
        title: str = "",
        tool_choice_note: str = "",
    ) -> None:
        super().__init__()
        self._start = dict(parameters)
        self._tools = sorted(set(tool_names))
        self._title = title
        #: What the dialog's server does with a forced choice when it differs from what is chosen (llama.cpp).
        self._tool_choice_note = tool_choice_note

    def compose(self) -> ComposeResult:
        start = self._start
        with Vertical(classes="frame") as frame:
            frame.border_title = "Parameters of this dialog" + (f" · {self._title}" if self._title else "")
            frame.border_subtitle = "empty = not sent · tab next field · ctrl+s save · esc cancel"
            for name, label, placeholder in _NUMBER_FIELDS:
                value = start.get(name)
                shown = "" if value is None else (f"{value:g}" if isinstance(value, float) else str(value))
                yield from field_row(label, Input(shown, id=name, compact=True, placeholder=placeholder))
            yield from field_row(
                "Stop sequences",
                Input(
                    join_stops(start.get("stop", [])),
                    id="stop",
                    compact=True,
                    placeholder="comma-separated; \\n is a line end, \\, a comma",
                ),
            )
            efforts = [(effort, effort) for effort in REASONING_EFFORTS]
            yield from field_row(
                "Reasoning effort",
                Select(
                    efforts,
                    value=start.get("reasoning_effort", Select.NULL),
                    id="reasoning_effort",
                    compact=True,
                    prompt="not set (models that have it use their default)",
                ),
            )
            choices = [
                (f"{mode}" + (" (a call in the first round)" if mode == "required" else ""), mode)
                for mode in TOOL_CHOICE_MODES
            ]
            choices += [(f"call {name} (first round)", name) for name in self._tools]
            current = start.get("tool_choice")
            if isinstance(current, str) and current not in dict((value, 0) for _, value in choices):
                choices.append((f"call {current} (first round)", current))
            yield from field_row(
                "Tool choice",
                Select(
                    choices,
                    value=current if current else Select.NULL,
                    id="tool_choice",
                    compact=True,
                    prompt="not set (the model decides)",
                ),
            )
            if self._tool_choice_note:
                yield Static(Content(self._tool_choice_note), id="tool-choice-note", classes="hint")
            yield Static("", id="error", classes="error")
            yield from self.save_and_cancel()

    def on_mount(self) -> None:
        self.query_one("#max_tokens", Input).focus()

    def values(self) -> dict[str, Any]:
        """What the fields say, before the checks (empty fields left out)."""
        values: dict[str, Any] = {}
        for name, _, _ in _NUMBER_FIELDS:
            text = self.query_one(f"#{name}", Input).value.strip()
            if text:
                values[name] = text
        stops = split_stops(self.query_one("#stop", Input).value)
        if stops:
            values["stop"] = stops
        for name in ("reasoning_effort", "tool_choice"):
            selected = self.query_one(f"#{name}", Select).value
            if isinstance(selected, str) and selected:
                values[name] = selected
        return values

    def action_save(self) -> None:
        try:
            cleaned = clean_parameters(self.values())
        except ParameterError as problem:
            self.query_one("#error", Static).update(Content(f"Cannot save: {problem}."))
            return
        self.dismiss(cleaned)
