"""`visindigo --demo`: the demo provider, its tool, and a dialog that already shows a branch.

The demo model (engine.providers.demo) is deterministic. Seeding runs it instantly: a weather question that
calls the `get_weather` tool and answers with reasoning, then a regenerated answer in a second branch, so
◀ 1/2 ▶ is there to try. The app then asks one more question live, so the first thing on screen is a
reply streaming in with its reasoning.

The demo keeps nothing: its dialogs live in memory, and its template library is a temporary folder (made
here, removed when the app ends) holding one sample template, so the template form can be tried without
writing into the user's folders.
"""

from __future__ import annotations

from pathlib import Path

from visindigo.engine import Center, Dialog, Role
from visindigo.engine.providers.demo import DEMO_PROVIDER_ID, demo_functions, demo_provider
from visindigo.engine.providers.scripted import ScriptedAdapter

DEMO_TITLE = "Weather in Kyoto (demo)"
FIRST_QUESTION = "What's the weather in Kyoto?"
LIVE_QUESTION = "And the weather in Osaka?"

#: The demo's sample template (`fileformat` of engine.templates), written into the demo's temporary folder.
SAMPLE_TEMPLATE_FILE = "weather-report.md"
SAMPLE_TEMPLATE = """+++
name = "Weather report"
description = "Ask the demo model about a city's weather (a sample template; the demo keeps no files)"
tags = ["demo"]
+++

What's the weather in {{city | text:placeholder="Kyoto":required}}?
Answer {{style | select:options=["briefly","in detail"]:default="briefly"}}.
"""


def write_sample_templates(folder: Path) -> None:
    """Put the demo's sample template into `folder` (a temporary folder the app made for the demo)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / SAMPLE_TEMPLATE_FILE).write_text(SAMPLE_TEMPLATE, encoding="utf-8")


async def _run_quietly(dialog: Dialog) -> None:
    async for _event in dialog.run():
        pass


def add_demo_provider(center: Center, *, delay: float = 0.02) -> bool:
    """Add the demo provider (the Center's default from now on) and its tool; False when it is there already.

    Apart from the seeding so a screen can name the demo model as soon as it is there (`--demo` is ready when
    its model is named in the status line), before the two seeded replies are run.
    """
    if center.get_provider(DEMO_PROVIDER_ID) is not None:
        return False
    provider = demo_provider(delay)
    center.add_provider(provider)
    center.default_provider_id = provider.id
    for function in demo_functions():
        center.add_function(function)
    return True


async def seed_demo(center: Center) -> Dialog:
    """Seed the demo dialogs with the demo provider `add_demo_provider` added; returns the dialog to open first."""
    provider = center.get_provider(DEMO_PROVIDER_ID)
    assert provider is not None
    adapter = provider.adapter
    assert isinstance(adapter, ScriptedAdapter)
    saved_delay = adapter.delay
    adapter.delay = 0.0  # seeding runs instantly; the live question streams at the chosen pace
    try:
        original = center.create_dialog()
        original.title = DEMO_TITLE
        original.append_message(Role.USER, FIRST_QUESTION)
        await _run_quietly(original)
        branch = center.regenerate(original)
        await _run_quietly(branch)
    finally:
        adapter.delay = saved_delay
    return branch


async def install_demo(center: Center, *, delay: float = 0.02) -> Dialog | None:
    """Add the demo provider and tool and seed the demo dialogs; returns the dialog to open first.

    Seeding happens once per Center: when the demo provider is already there, nothing is added.
    """
    if not add_demo_provider(center, delay=delay):
        return None
    return await seed_demo(center)
