"""Snapshots of the screens MCP servers open (elicitation, sampling, sign-in) at 80×24, with fixed content.

Each docstring says what the SVG must show; look at it before accepting a new one with `--snapshot-update`.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tests.tui.screens_host import ScreenHost
from visindigo.engine.mcp.host import ElicitationRequest, SamplingMessage, SamplingRequest
from visindigo.tui.mcp.elicitation import ElicitationScreen
from visindigo.tui.mcp.sampling import SamplingScreen
from visindigo.tui.mcp.sign_in_page import SignInScreen

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "description": "Your name"},
        "age": {"type": "integer", "title": "Age", "minimum": 0},
        "subscribe": {"type": "boolean", "title": "Send news", "default": False},
        "colour": {"type": "string", "title": "Colour", "enum": ["red", "green", "blue"], "default": "blue"},
    },
    "required": ["name", "age"],
}


def elicitation() -> ElicitationScreen:
    return ElicitationScreen(ElicitationRequest("crm", "Who is the [b]contact[/b]?", schema=SCHEMA))


def sampling() -> SamplingScreen:
    return SamplingScreen(
        SamplingRequest(
            "notes",
            (SamplingMessage("user", "Summarise: the meeting moved to Friday."),),
            system_prompt="Be brief.",
            max_tokens=1_000_000,
            model_hints=("small",),
            speed_priority=0.8,
            provider_id="local",
            model_id="small-model",
        )
    )


def sign_in() -> SignInScreen:
    return SignInScreen("tracker", "http://127.0.0.1:9/authorize?response_type=code&client_id=abc", asyncio.Event())


def test_elicitation_form_80x24(snap_compare: Any) -> None:
    """You should see "crm asks" with "Who is the [b]contact[/b]?" literally, the fields Name * (with its
    description), Age *, a "Send news" checkbox and a Colour choice showing blue, then Accept / Decline /
    Cancel, and "ctrl+s accept · esc cancel" on the border."""
    assert snap_compare(ScreenHost(elicitation), terminal_size=(80, 24))


def test_sampling_approval_80x24(snap_compare: Any) -> None:
    """You should see "notes wants to use your model": model small-model on local, preferences "hints small ·
    speed 0.8", "Token limit: 16,384 (it asked for 1,000,000; capped)" in the warning colour, the system and
    user messages in a box, and Allow once / Allow for this server / Deny with Deny focused."""
    assert snap_compare(ScreenHost(sampling), terminal_size=(80, 24))


def test_sign_in_80x24(snap_compare: Any) -> None:
    """You should see "Sign in to tracker", the sentence asking to open the page, the authorization URL in full,
    the note that the box closes by itself, and a Cancel button."""
    assert snap_compare(ScreenHost(sign_in), terminal_size=(80, 24))
