"""Writing the config from the app: atomic, key by key, unknown keys kept, API keys apart and private."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest

from visindigo.engine import Capability, MCPServer, ModelInfo, Provider, Skill
from visindigo.engine import config as cfg
from visindigo.engine.config import ConfigError, load_config
from visindigo.engine.paths import Paths

from .conftest import write


def read(path: Path) -> dict[str, object]:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def sample_provider() -> Provider:
    return Provider(
        "ds",
        kind="openai",
        name="DeepSeek",
        base_url="https://api.deepseek.com/v1",
        headers={"X-Title": "visindigo"},
        models=[
            ModelInfo("deepseek-chat", capabilities=Capability.TEXT | Capability.TOOLS, context_window=64000),
            ModelInfo("deepseek-reasoner", name="R1", capabilities=Capability.TEXT | Capability.REASONING,
                      extra={"extra_body": {"thinking": {"type": "enabled"}}}),
        ],
        default_model="deepseek-chat",
        read_timeout=120.0,
        settings={"send_reasoning_with_tool_calls": True},
    )


def test_a_provider_round_trips_and_its_key_goes_to_a_private_file(paths: Paths) -> None:
    cfg.add_provider(paths, sample_provider(), api_key="sk-secret-ds")
    assert "sk-secret-ds" not in paths.config_file.read_text(encoding="utf-8")
    assert read(paths.credentials_file) == {"providers": {"ds": {"api_key": "sk-secret-ds"}}}
    if os.name == "posix":
        assert paths.credentials_file.stat().st_mode & 0o777 == 0o600
    config, problems = load_config(paths)
    assert problems == []
    [loaded] = config.providers()
    original = sample_provider()
    assert loaded.api_key == "sk-secret-ds"
    for attribute in ("id", "kind", "name", "base_url", "headers", "default_model", "read_timeout",
                      "connect_timeout", "settings"):
        assert getattr(loaded, attribute) == getattr(original, attribute), attribute
    assert loaded.models == original.models
    with pytest.raises(ConfigError, match="exists already"):
        cfg.add_provider(paths, sample_provider())


def test_updating_keeps_what_the_app_does_not_know_and_moves_a_pasted_key_out(paths: Paths) -> None:
    write(
        paths,
        """# my notes
future_setting = "keep me"

[providers.ds]
kind = "openai"
base_url = "https://old.example/v1"
api_key = "sk-pasted"
my_own_knob = 3

[[providers.ds.models]]
id = "deepseek-chat"
temperature = 0.3
""",
    )
    cfg.update_provider(paths, sample_provider())
    document = read(paths.config_file)
    assert document["future_setting"] == "keep me"
    entry = document["providers"]["ds"]  # type: ignore[index]
    assert entry["my_own_knob"] == 3 and "api_key" not in entry
    assert entry["base_url"] == "https://api.deepseek.com/v1"
    assert entry["models"][0] == {  # the unknown model key stays with its model
        "id": "deepseek-chat",
        "temperature": 0.3,
        "capabilities": ["text", "tools"],
        "context_window": 64000,
    }
    assert "# my notes" in paths.config_file.read_text(encoding="utf-8")  # comments are kept (tomlkit)
    with pytest.raises(ConfigError, match="no provider 'zz'"):
        cfg.update_provider(paths, Provider("zz", kind="scripted"))


def test_the_key_argument_keeps_replaces_or_removes_the_stored_key(paths: Paths) -> None:
    cfg.save_provider(paths, sample_provider(), api_key="sk-1")
    cfg.save_provider(paths, sample_provider())
    assert load_config(paths)[0].credentials.get("ds") == "sk-1"
    cfg.save_provider(paths, sample_provider(), api_key="sk-2")
    assert load_config(paths)[0].credentials.get("ds") == "sk-2"
    cfg.save_provider(paths, sample_provider(), api_key="")
    assert load_config(paths)[0].credentials.get("ds") is None


def test_removing_a_provider_removes_its_key_and_the_default_pointing_at_it(paths: Paths) -> None:
    cfg.save_provider(paths, sample_provider(), api_key="sk-1")
    cfg.save_provider(paths, Provider("other", kind="scripted"), api_key="sk-other")
    cfg.set_default_provider(paths, "ds", "deepseek-chat")
    assert (read(paths.config_file)["default_provider"], read(paths.config_file)["default_model"]) == (
        "ds",
        "deepseek-chat",
    )
    assert cfg.remove_provider(paths, "ds") is True
    document = read(paths.config_file)
    assert "default_provider" not in document and list(document["providers"]) == ["other"]  # type: ignore[arg-type]
    assert read(paths.credentials_file) == {"providers": {"other": {"api_key": "sk-other"}}}
    assert cfg.remove_provider(paths, "ds") is False


def test_a_file_with_a_syntax_error_is_never_written_over(paths: Paths) -> None:
    broken = 'theme = "x"\n[providers\n'
    write(paths, broken)
    with pytest.raises(ConfigError) as refused:
        cfg.set_theme(paths, "visindigo-light")
    assert str(paths.config_file) in str(refused.value) and "syntax error" in str(refused.value)
    with pytest.raises(ConfigError):
        cfg.save_provider(paths, sample_provider(), api_key="sk-never-stored")
    assert paths.config_file.read_text(encoding="utf-8") == broken
    assert not paths.credentials_file.exists()


def test_writes_replace_the_file_atomically_and_leave_no_temporary_files(paths: Paths) -> None:
    write(paths, 'theme = "a"\n')
    os.chmod(paths.config_file, 0o640)
    before = paths.config_file.stat().st_ino
    cfg.set_theme(paths, "visindigo-light")
    assert paths.config_file.stat().st_ino != before  # a new file was renamed into place
    assert read(paths.config_file)["theme"] == "visindigo-light"
    assert sorted(p.name for p in paths.config_dir.iterdir()) == ["config.toml"]
    if os.name == "posix":
        assert paths.config_file.stat().st_mode & 0o777 == 0o640  # the user's chosen mode is kept


def test_a_value_toml_cannot_hold_fails_before_the_file_is_touched(paths: Paths) -> None:
    write(paths, 'theme = "a"\n')
    odd = Provider("odd", kind="scripted", settings={"when": object()})
    with pytest.raises(TypeError):
        cfg.save_provider(paths, odd)
    assert paths.config_file.read_text(encoding="utf-8") == 'theme = "a"\n'


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_a_symlinked_config_stays_a_symlink(paths: Paths, tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "visindigo.toml"
    real.parent.mkdir()
    real.write_text('theme = "a"\n', encoding="utf-8")
    paths.config_dir.mkdir(parents=True)
    paths.config_file.symlink_to(real)
    cfg.set_theme(paths, "b")
    assert paths.config_file.is_symlink() and read(real)["theme"] == "b"


def test_settings_writers(paths: Paths) -> None:
    cfg.set_key_binding(paths, "app.send", "ctrl+enter")
    cfg.set_key_binding(paths, "app.quit", "ctrl+q")
    cfg.set_key_binding(paths, "app.quit", None)
    cfg.set_prompt_dir(paths, "~/prompts")
    cfg.set_max_tool_rounds(paths, 4)
    cfg.save_skill(paths, Skill("terse", "Be brief.", description="short"))
    cfg.save_skill(paths, Skill("gone", "x"))
    assert cfg.remove_skill(paths, "gone") is True
    config, problems = load_config(paths)
    assert problems == []
    assert config.keys == {"app.send": "ctrl+enter"}
    assert config.prompt_dir == Path("~/prompts").expanduser()
    assert config.max_tool_rounds == 4
    assert config.skills == [Skill("terse", "Be brief.", description="short")]
    with pytest.raises(ConfigError):
        cfg.set_max_tool_rounds(paths, 0)


def test_mcp_servers_are_added_once_and_removed(paths: Paths) -> None:
    server = MCPServer("time", command="uvx", args=("mcp-server-time",), env={"TZ": "${TZ:-UTC}"}, approval="allow")
    cfg.add_mcp_server(paths, server)
    with pytest.raises(ConfigError, match="exists already"):
        cfg.add_mcp_server(paths, server)
    cfg.add_mcp_server(paths, MCPServer("time", url="http://127.0.0.1:9/mcp"), replace=True)
    assert read(paths.config_file)["mcp_servers"] == {"time": {"url": "http://127.0.0.1:9/mcp"}}
    cfg.add_mcp_server(paths, server, replace=True)
    assert load_config(paths)[0].mcp_servers == [server]
    assert cfg.remove_mcp_server(paths, "time") is True
    assert "mcp_servers" not in read(paths.config_file)


def test_claude_desktop_servers_are_imported(paths: Paths, tmp_path: Path) -> None:
    desktop = tmp_path / "claude_desktop_config.json"
    desktop.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TOKEN": "${TIME_TOKEN}"}},
                    "remote": {"url": "http://127.0.0.1:9/mcp", "type": "http"},
                },
                "globalShortcut": "ignored",
            }
        ),
        encoding="utf-8",
    )
    result = cfg.import_mcp_servers(paths, desktop)
    assert (result.added, result.skipped) == (["time", "remote"], [])
    servers = {s.name: s for s in load_config(paths)[0].mcp_servers}
    assert servers["time"].env == {"TOKEN": "${TIME_TOKEN}"} and servers["remote"].kind == "http"
    again = cfg.import_mcp_servers(paths, desktop)
    assert (again.added, again.skipped) == ([], ["time", "remote"])


def test_a_bad_import_file_changes_nothing(paths: Paths, tmp_path: Path) -> None:
    cfg.set_theme(paths, "a")
    before = paths.config_file.read_bytes()
    bad_json = tmp_path / "bad.json"
    bad_json.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad\.json"):
        cfg.import_mcp_servers(paths, bad_json)
    half = tmp_path / "half.json"
    half.write_text(json.dumps({"mcpServers": {"ok": {"command": "x"}, "broken": {"args": []}}}), encoding="utf-8")
    with pytest.raises(ConfigError, match="broken"):
        cfg.import_mcp_servers(paths, half)
    with pytest.raises(ConfigError, match="cannot be read"):
        cfg.import_mcp_servers(paths, tmp_path / "missing.json")
    assert paths.config_file.read_bytes() == before


def test_package_tools_are_enabled_and_allowed_in_the_config(paths: Paths) -> None:
    cfg.set_package_tool(paths, "weather", enabled=True)
    cfg.set_package_tool(paths, "units", enabled=True, allowed=True)
    config, _ = load_config(paths)
    assert (config.enabled_tools, config.allowed_tools) == (["weather", "units"], ["units"])
    cfg.set_package_tool(paths, "units", enabled=False, allowed=False)
    cfg.set_package_tool(paths, "weather", enabled=False)
    assert "tools" not in read(paths.config_file)
