"""Snapshots of every management screen at 80×24 (and some at 120×40), with fixed content.

Each docstring says what the SVG must show; look at the SVG (or the report pytest writes on failure) before
accepting a new one with `--snapshot-update`.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.binding import Binding

from tests.tui.screens_host import ScreenHost
from visindigo.engine import Capability, Center, MCPServer, ModelInfo, Provider, Skill
from visindigo.engine.approval import ToolCallRequest
from visindigo.tui.common.approval import ApprovalScreen
from visindigo.tui.common.confirm import ConfirmScreen
from visindigo.tui.common.help import HelpScreen, sections_for
from visindigo.tui.mcp.servers import MCPServerFormScreen, MCPServersScreen
from visindigo.tui.setup.first_run import FirstRunScreen
from visindigo.tui.setup.model_picker import ModelPickerScreen
from visindigo.tui.setup.providers import ProviderFormScreen, ProvidersScreen
from visindigo.tui.setup.skills import SkillsScreen

REQUEST = ToolCallRequest(
    call_id="call_7",
    function_id="weather__get_forecast",
    function_name="get_forecast",
    arguments={"city": "Kyoto", "days": 3, "units": "metric", "include": ["rain", "wind"], "note": "[b]not bold[/b]"},
)

MAIN_KEYS = [
    Binding("ctrl+s", "send", "Send"),
    Binding("escape", "cancel", "Cancel the reply"),
    Binding("ctrl+r", "regenerate", "Regenerate (new branch)"),
    Binding("ctrl+e", "edit", "Edit a message (new branch)"),
    Binding("f1", "help", "Keys"),
    Binding("f2", "pick_model", "Model"),
    Binding("f3", "providers", "Providers"),
]


def approval() -> ApprovalScreen:
    return ApprovalScreen(REQUEST)


def model_center() -> Center:
    center = Center()
    tif = Capability.TEXT | Capability.IMAGE | Capability.TOOLS
    openai = Provider(
        "openai",
        name="OpenAI",
        base_url="https://api.openai.com/v1",
        models=[
            ModelInfo("gpt-4o", capabilities=tif, context_window=128_000),
            ModelInfo("gpt-4o-mini", capabilities=tif, context_window=128_000),
            ModelInfo(
                "o3-mini",
                capabilities=Capability.TEXT | Capability.TOOLS | Capability.REASONING,
                context_window=200_000,
            ),
        ],
    )
    local = Provider(
        "local",
        name="llama.cpp",
        base_url="http://127.0.0.1:8080/v1",
        models=[ModelInfo("qwen3-8b", capabilities=Capability.TEXT | Capability.REASONING)],
    )
    for provider in (openai, local):
        provider.models_listed = True  # nothing to fetch: the snapshot is the configured list
        center.add_provider(provider)
    return center


def providers_center() -> Center:
    center = Center()
    center.add_provider(
        Provider(
            "openai",
            name="OpenAI",
            base_url="https://api.openai.com/v1",
            api_key_env="VISINDIGO_SNAPSHOT_UNSET_KEY",
            models=[ModelInfo("gpt-4o")],
            default_model="gpt-4o",
        )
    )
    center.add_provider(
        Provider(
            "deepseek", name="DeepSeek", base_url="https://api.deepseek.com/v1", api_key="sk-never-shown-0123456789"
        )
    )
    center.add_provider(Provider("local", base_url="http://127.0.0.1:8080/v1"))
    return center


def mcp_center() -> Center:
    center = Center()
    center.add_mcp(MCPServer("time", command="uvx", args=("mcp-server-time", "--local-timezone", "UTC")))
    center.add_mcp(
        MCPServer(
            "github",
            command="npx",
            args=("-y", "@modelcontextprotocol/server-github"),
            env={"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_never_shown_0123456789abcdef"},
            enabled=False,
        )
    )
    center.add_mcp(
        MCPServer(
            "docs",
            url="https://mcp.example.invalid/mcp",
            headers={"Authorization": "Bearer ${DOCS_TOKEN}"},
            approval="allow",
        )
    )
    return center


def skills_screen() -> SkillsScreen:
    center = Center()
    center.add_skill(Skill("concise", "Answer in at most three sentences.", "Short answers"))
    center.add_skill(Skill("cite", "Cite your sources."))
    dialog = center.create_dialog()
    dialog.add_skill(Skill("cite", "Cite your sources with links, as a numbered list at the end."))
    return SkillsScreen(center, dialog, library=[Skill("pirate", "Talk like a pirate.", "Arr")])


def first_run() -> FirstRunScreen:
    found = [
        Provider("openai", name="OpenAI", base_url="https://api.openai.com/v1", api_key_env="OPENAI_API_KEY"),
        Provider(
            "ollama",
            name="Ollama (127.0.0.1:11434)",
            base_url="http://127.0.0.1:11434/v1",
            models=[ModelInfo("llama3.2"), ModelInfo("qwen3:8b")],
        ),
    ]
    return FirstRunScreen(found, paths=None)


def host(make: Any, theme: str = "visindigo-dark") -> ScreenHost:
    return ScreenHost(make, theme=theme)


def test_approval_80x24(snap_compare: Any) -> None:
    """You should see a bordered "Allow this tool call?" box: get_forecast (weather__get_forecast), the
    arguments as indented JSON with "[b]not bold[/b]" shown literally, the sentence about denying, and the
    buttons Allow once / Allow for this dialog / Deny, with Deny focused."""
    assert snap_compare(host(approval), terminal_size=(80, 24))


def test_approval_120x40(snap_compare: Any) -> None:
    """You should see the same approval box as at 80×24, centred on a wider screen, all arguments visible."""
    assert snap_compare(host(approval), terminal_size=(120, 40))


@pytest.mark.parametrize(
    "theme", ["visindigo-light", "visindigo-high-contrast", "visindigo-colour-blind", "visindigo-ansi"]
)
def test_approval_in_each_theme(snap_compare: Any, theme: str) -> None:
    """You should see the approval box in the light theme (dark text on pale background), high contrast
    (white on black, yellow border and focus), colour-blind safe (sky blue and orange on near black) and ANSI
    theme (terminal colours), all readable."""
    assert snap_compare(host(approval, theme), terminal_size=(80, 24))


def test_confirm_80x24(snap_compare: Any) -> None:
    """You should see "Delete dialog?" with the body quoting “[b]Trip plan[/b]” literally, a red Delete (y)
    button and a focused Cancel (n) button."""
    assert snap_compare(
        host(
            lambda: ConfirmScreen(
                "Delete dialog?",
                "Delete “[b]Trip plan[/b]”? Its branches stay and move up one level.",
                "Delete",
                danger=True,
            )
        ),
        terminal_size=(80, 24),
    )


def test_help_80x24(snap_compare: Any) -> None:
    """You should see a "Keys" box with a filter field on top and a table: a "Main screen" section (^s Send,
    esc Cancel the reply, ...) then "Tool approval" and "Confirmation" sections, keys in bold."""
    sections = [
        ("Main screen", MAIN_KEYS),
        *sections_for([("Tool approval", ApprovalScreen), ("Confirmation", ConfirmScreen)]),
    ]
    assert snap_compare(host(lambda: HelpScreen(sections)), terminal_size=(80, 24))


def test_help_filtered_120x40(snap_compare: Any) -> None:
    """You should see the help box at 120×40 with "branch" typed in the filter and only the two rows about
    branches (Regenerate, Edit a message) under "Main screen"."""
    sections = [("Main screen", MAIN_KEYS), *sections_for([("Tool approval", ApprovalScreen)])]
    assert snap_compare(host(lambda: HelpScreen(sections)), press=list("branch"), terminal_size=(120, 40))


def test_model_picker_80x24(snap_compare: Any) -> None:
    """You should see "Choose a model": providers OpenAI (default) and llama.cpp on the left, and OpenAI's
    models on the right with marks TIF· / T·FR, context windows, "● " before o3-mini (current), "(no
    reasoning)" after the two gpt-4o models, "3 models.", "Marks from text, tools, reasoning: config" (the
    highlighted o3-mini's marks come from the config), and the legend of the marks at the bottom."""
    assert snap_compare(
        host(lambda: ModelPickerScreen(model_center(), "openai", "o3-mini", required=Capability.REASONING)),
        terminal_size=(80, 24),
    )


def test_providers_80x24(snap_compare: Any) -> None:
    """You should see "Providers": a table with ★ openai (key "not set (env VISINDIGO_SNAPSHOT_…"), deepseek
    ("set (stored)") and local ("none"), and below it OpenAI's details; no key is visible anywhere."""
    assert snap_compare(host(lambda: ProvidersScreen(providers_center(), None)), terminal_size=(80, 24))


def test_provider_form_with_errors_80x24(snap_compare: Any) -> None:
    """You should see "Add a provider" with Id "my model", Base URL "ftp://x" and Key env variable
    "sk-abc" in red, and the reasons under the fields; the Save and Cancel buttons are visible."""
    keys = [*"my model", "tab", "tab", "tab", "ctrl+u", *"ftp://x", "tab", *"sk-abc", "ctrl+s"]
    assert snap_compare(host(lambda: ProviderFormScreen(taken_ids=["openai"])), press=keys, terminal_size=(80, 24))


def test_mcp_servers_80x24(snap_compare: Any) -> None:
    """You should see "MCP servers": time (●, state —), github (○, disabled), docs (●) with their command or
    URL, and the details of "time" below; the GitHub token is not visible."""
    assert snap_compare(host(lambda: MCPServersScreen(mcp_center(), None, None)), terminal_size=(80, 24))


def test_mcp_server_form_80x24(snap_compare: Any) -> None:
    """You should see "Edit MCP server" for github: command npx, arguments, Environment
    'GITHUB_PERSONAL_ACCESS_TOKEN=<kept>' (the token hidden), Enabled unticked, and Save / Cancel."""
    server = mcp_center().mcp_servers[1]
    assert snap_compare(host(lambda: MCPServerFormScreen(server)), terminal_size=(80, 24))


def test_skills_80x24(snap_compare: Any) -> None:
    """You should see "Skills for this dialog": ● concise [global], ● cite [this dialog, replaces global],
    ○ pirate [available], with concise highlighted and its text under "What it tells the model"."""
    assert snap_compare(host(skills_screen), terminal_size=(80, 24))


def test_first_run_80x24(snap_compare: Any) -> None:
    """You should see "Welcome to Visindigo": OpenAI (key in $OPENAI_API_KEY), Ollama (server at
    http://127.0.0.1:11434/v1, 2 models), Add a provider by hand, Try the demo, the empty field "or type a
    server's address and press enter, e.g. 127.0.0.1:8765", and the note that keys are shown by variable name
    only."""
    assert snap_compare(host(first_run), terminal_size=(80, 24))


def test_first_run_120x40(snap_compare: Any) -> None:
    """You should see the same welcome box as at 80×24, centred on a 120×40 screen."""
    assert snap_compare(host(first_run), terminal_size=(120, 40))
