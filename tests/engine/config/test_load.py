"""Reading config.toml: the documented example, and every kind of mistake reported with file and key."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from visindigo.engine import Capability
from visindigo.engine.config import load_config
from visindigo.engine.paths import Paths

from .conftest import documented_example, write


def test_the_documented_example_loads_without_a_problem(paths: Paths) -> None:
    write(paths, documented_example())
    (paths.config_dir / "skills").mkdir()
    (paths.config_dir / "skills" / "house-style.md").write_text("Use British spelling.", encoding="utf-8")
    config, problems = load_config(paths)
    assert problems == []
    providers = {p.id: p for p in config.providers()}
    assert list(providers) == ["openai", "deepseek", "local", "claude"]
    openai = providers["openai"]
    assert (openai.kind, openai.name, openai.base_url, openai.api_key_env) == (
        "openai",
        "OpenAI",
        "https://api.openai.com/v1",
        "OPENAI_API_KEY",
    )
    assert (openai.connect_timeout, openai.read_timeout, openai.default_model) == (10.0, 300.0, "gpt-4o-mini")
    [mini] = openai.models
    assert (mini.name, mini.capabilities, mini.context_window, mini.max_output_tokens) == (
        "GPT-4o mini",
        Capability.TEXT | Capability.IMAGE | Capability.TOOLS,
        128000,
        16384,
    )
    assert providers["deepseek"].settings == {"send_reasoning_with_tool_calls": True}
    assert providers["local"].headers == {"X-Client": "visindigo"}
    assert providers["local"].models[0].starts_in_thinking is True
    assert (config.default_provider, config.default_model, config.theme) == (
        "deepseek",
        "deepseek-chat",
        "visindigo-dark",
    )
    assert config.max_tool_rounds == 16 and config.max_tool_calls == 32
    assert config.keys == {"new-dialog": "ctrl+n", "regenerate": "ctrl+r,f5"}
    assert config.prompt_dir == paths.config_dir / "prompts"
    assert {s.name: s.content for s in config.skills} == {
        "terse": "Answer in as few words as the question allows.",
        "house-style": "Use British spelling.",
    }
    servers = {s.name: s for s in config.mcp_servers}
    assert servers["time"].args == ("mcp-server-time", "--local-timezone=Europe/Berlin")
    assert servers["time"].approval == "allow"
    assert servers["github"].headers == {"Authorization": "Bearer ${GITHUB_TOKEN}"}  # kept unexpanded
    assert servers["github"].kind == "http" and servers["github"].timeout == 60


def test_a_missing_file_is_an_empty_config_not_a_problem(paths: Paths) -> None:
    config, problems = load_config(paths)
    assert problems == [] and config.providers() == [] and config.theme == "visindigo-dark"
    assert config.max_tool_rounds is None


def test_a_syntax_error_names_the_file_and_line_and_nothing_of_it_is_used(paths: Paths) -> None:
    write(paths, 'theme = "visindigo-light"\n[providers.x\nkind = "openai"\n')
    config, problems = load_config(paths)
    [problem] = problems
    assert str(paths.config_file) in str(problem) and "line 2" in str(problem)
    assert config.theme == "visindigo-dark" and config.providers() == []


def test_each_invalid_entry_is_dropped_alone_with_a_message_naming_file_and_key(paths: Paths) -> None:
    write(
        paths,
        """
theme = 3
default_provider = "good"

[run]
max_tool_rounds = 0

[keys]
"app.quit" = ""
"app.send" = "ctrl+enter"

[providers.slow]
kind = "openai"
base_url = "http://127.0.0.1:9/v1"
read_timeout = -1

[providers.good]
kind = "openai"
base_url = "http://127.0.0.1:9/v1"

[[providers.good.models]]
id = "fine"
capabilities = ["text", "tools"]

[[providers.good.models]]
id = "broken"
capabilities = ["text", "telepathy"]

[providers.nokind]
base_url = "http://127.0.0.1:9/v1"

[providers.nourl]
kind = "anthropic"

[providers.weird]
kind = "gemini"
base_url = "http://x"

[skills.empty]
description = "no text"

[skills.ok]
content = "be brief"

[mcp_servers.nothing]
args = ["x"]

[mcp_servers.time]
command = "uvx"
args = ["mcp-server-time"]
approval = "sometimes"
""",
    )
    config, problems = load_config(paths)
    messages = {p.key: p.message for p in problems}
    assert all(p.file == paths.config_file for p in problems)
    assert "expected text in quotes, found a whole number" in messages["theme"]
    assert "at least 1" in messages["run.max_tool_rounds"]
    assert "must be a key" in messages['keys."app.quit"']
    assert "more than 0" in messages["providers.slow.read_timeout"]
    assert "'text', 'image', 'tools', 'reasoning'" in messages["providers.good.models[1].capabilities[1]"]
    assert "missing 'kind'" in messages["providers.nokind"]
    assert "missing 'base_url'" in messages["providers.nourl"]
    assert "'openai', 'anthropic', 'scripted'" in messages["providers.weird.kind"]
    assert "'content'" in messages["skills.empty"] and "'file'" in messages["skills.empty"]
    assert "'command'" in messages["mcp_servers.nothing"]
    assert "'ask', 'read_only', 'allow'" in messages["mcp_servers.time.approval"]
    assert len(problems) == 11
    # What is valid still counts: the theme falls back, one bad model leaves the other, ...
    assert config.theme == "visindigo-dark" and config.max_tool_rounds is None
    assert config.keys == {"app.send": "ctrl+enter"}
    [good] = config.providers()  # `slow` has a bad timeout: that whole provider waits for a fix
    assert good.id == "good" and [m.id for m in good.models] == ["fine"]
    assert config.default_provider == "good"
    assert [s.name for s in config.skills] == ["ok"]
    assert config.mcp_servers == []


def test_one_bad_model_leaves_the_provider_and_its_other_models(paths: Paths) -> None:
    write(
        paths,
        """
[providers.p]
kind = "openai"
base_url = "http://127.0.0.1:9/v1"
models = [{ id = "a" }, { id = "b", context_window = "big" }, { id = "c", capabilities = ["image"] }]
""",
    )
    config, problems = load_config(paths)
    [problem] = problems
    assert problem.key == "providers.p.models[1].context_window"
    assert "providers.p.models[1] is ignored" in problem.message
    [provider] = config.providers()
    assert [m.id for m in provider.models] == ["a", "c"]
    assert provider.models[1].capabilities == Capability.IMAGE


def test_problem_messages_never_repeat_the_value(paths: Paths) -> None:
    secret = "sk-live-0123456789abcdef"
    write(
        paths,
        f"""
[providers.p]
kind = "{secret}"
base_url = "{secret}"
api_key_env = "{secret}-not-a-name"
headers = {{ Authorization = 42 }}

[mcp_servers.s]
url = "{secret}"
""",
    )
    _, problems = load_config(paths)
    assert len(problems) == 2
    assert all(secret not in str(p) for p in problems)


def test_a_default_provider_that_does_not_exist_is_reported(paths: Paths) -> None:
    write(paths, 'default_provider = "nope"\n[providers.a]\nkind = "scripted"\n')
    config, problems = load_config(paths)
    assert [p.key for p in problems] == ["default_provider"]
    assert "'nope'" in problems[0].message and "configured: a" in problems[0].message
    assert config.default_provider == ""
    write(paths, 'default_provider = "bad"\n[providers.bad]\nkind = "nonsense"\n')
    _, problems = load_config(paths)
    assert [p.key for p in problems] == ["providers.bad.kind", "default_provider"]
    assert "has a problem" in problems[1].message


def test_keys_come_from_the_credentials_file(paths: Paths, caplog: pytest.LogCaptureFixture) -> None:
    write(paths, '[providers.a]\nkind = "openai"\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "A_KEY"\n')
    paths.credentials_file.write_text('[providers.a]\napi_key = "sk-from-file"\n', encoding="utf-8")
    os.chmod(paths.credentials_file, 0o600)
    with caplog.at_level(logging.DEBUG):
        config, problems = load_config(paths)
    assert problems == []
    [provider] = config.providers()
    assert provider.api_key == "sk-from-file"
    assert "sk-from-file" not in repr(config) + repr(provider) + repr(config.credentials) + caplog.text


def test_a_key_in_the_config_file_works_but_is_reported_without_the_key(paths: Paths) -> None:
    write(
        paths,
        '[providers.a]\nkind = "openai"\nbase_url = "http://127.0.0.1:9/v1"\napi_key = "sk-in-config"\n'
        'headers = { Authorization = "Bearer sk-in-header" }\n',
    )
    config, problems = load_config(paths)
    [problem] = problems
    assert problem.key == "providers.a.api_key" and "credentials.toml" in problem.message
    assert "sk-in-config" not in str(problem)
    shown = repr(config) + repr(config.providers())  # what a log line or a crash report's locals would show
    assert "sk-in-config" not in shown and "sk-in-header" not in shown
    assert config.providers()[0].api_key == "sk-in-config"


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_a_credentials_file_others_can_read_is_reported(paths: Paths) -> None:
    write(paths, "")
    paths.credentials_file.write_text('[providers.a]\napi_key = "sk-x"\n', encoding="utf-8")
    os.chmod(paths.credentials_file, 0o644)
    _, problems = load_config(paths)
    [problem] = problems
    assert problem.file == paths.credentials_file and "chmod 600" in problem.message and "sk-x" not in str(problem)


def test_a_skill_file_that_cannot_be_read_is_reported(paths: Paths) -> None:
    write(paths, '[skills.gone]\nfile = "skills/missing.md"\n')
    config, problems = load_config(paths)
    [problem] = problems
    assert problem.key == "skills.gone.file" and "missing.md" in problem.message
    assert config.skills == []


def test_a_relative_or_home_prompt_dir(paths: Paths, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    write(paths, 'prompt_dir = "my-prompts"\n')
    assert load_config(paths)[0].prompt_dir == paths.config_dir / "my-prompts"
    monkeypatch.setenv("HOME", str(tmp_path))
    write(paths, 'prompt_dir = "~/p"\n')
    assert load_config(paths)[0].prompt_dir == tmp_path / "p"


def test_unknown_keys_are_accepted(paths: Paths) -> None:
    write(paths, 'future_setting = 1\n[providers.a]\nkind = "scripted"\nnew_knob = true\n'
                 '[[providers.a.models]]\nid = "m"\ntemperature = 0.2\n')
    config, problems = load_config(paths)
    assert problems == []
    assert config.providers()[0].models[0].extra == {"temperature": 0.2}


def test_a_bad_provider_setting_or_ui_value_is_reported_and_only_it_is_dropped(paths: Paths) -> None:
    write(
        paths,
        """
[ui]
stream_fps = 500
future_knob = "kept"

[providers.p]
kind = "anthropic"
base_url = "http://127.0.0.1:9"

[providers.p.settings]
max_retries = "3"
send_reasoning_with_tool_calls = "yes"
anthropic_version = "2023-06-01"
my_own_setting = 1

[[providers.p.models]]
id = "m"
thinking_budget = 100

[[providers.p.models]]
id = "n"
thinking_budget = 2048
extra_body = { top_k = 5 }

[providers.q]
kind = "scripted"
settings = 5
""",
    )
    config, problems = load_config(paths)
    messages = {p.key: p.message for p in problems}
    assert set(messages) == {
        "ui.stream_fps",
        "providers.p.settings.max_retries",
        "providers.p.settings.send_reasoning_with_tool_calls",
        "providers.p.models[0].thinking_budget",
        "providers.q.settings",
    }
    assert messages["ui.stream_fps"] == "must be at most 60 (ui.stream_fps is ignored until this is fixed)"
    assert messages["providers.p.settings.max_retries"].startswith("expected a whole number, found text")
    assert messages["providers.p.settings.send_reasoning_with_tool_calls"].startswith("expected true or false")
    assert "at least 1024" in messages["providers.p.models[0].thinking_budget"]
    assert config.data["ui"] == {"future_knob": "kept"}
    p, q = config.providers()  # each provider stays; only the bad values are gone
    assert p.settings == {"anthropic_version": "2023-06-01", "my_own_setting": 1}
    assert [(m.id, m.extra) for m in p.models] == [("n", {"thinking_budget": 2048, "extra_body": {"top_k": 5}})]
    assert q.settings == {}


def test_a_model_price_is_kept_for_the_compare_header_and_a_bad_one_is_reported(paths: Paths) -> None:
    write(
        paths,
        """
[providers.p]
kind = "openai"
base_url = "http://127.0.0.1:9/v1"
models = [
  { id = "a", price = { input = 0.15, output = 0.6 } }, { id = "b", price = 5 }, { id = "c", price = { input = -1 } },
]
""",
    )
    config, problems = load_config(paths)
    assert sorted(p.key for p in problems) == ["providers.p.models[1].price", "providers.p.models[2].price.input"]
    assert "per million tokens" in next(p.message for p in problems if p.key.endswith("[1].price"))
    [provider] = config.providers()
    assert [m.id for m in provider.models] == ["a"]
    assert provider.models[0].extra["price"] == {"input": 0.15, "output": 0.6}


def test_composer_keys_is_standard_or_vim(paths: Paths) -> None:
    write(paths, '[ui]\ncomposer_keys = "vim"\n')
    config, problems = load_config(paths)
    assert problems == [] and config.data["ui"] == {"composer_keys": "vim"}
    write(paths, '[ui]\ncomposer_keys = "emacs"\n')
    config, problems = load_config(paths)
    assert [p.key for p in problems] == ["ui.composer_keys"]
    assert "composer_keys" not in config.data.get("ui", {})  # dropped: the standard keys
