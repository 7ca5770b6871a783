"""A configuration put into a Center, and `Center.open` reading it; keys never leak anywhere."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from visindigo.engine import Center, Provider, Role
from visindigo.engine import config as cfg
from visindigo.engine.config import apply_config, load_config
from visindigo.engine.export import export_json, export_markdown
from visindigo.engine.paths import Paths

from .conftest import documented_example, write


def test_apply_registers_providers_skills_servers_and_settings(paths: Paths) -> None:
    write(paths, documented_example().replace('file = "skills/house-style.md"', 'content = "British spelling."'))
    config, problems = load_config(paths)
    assert problems == []
    center = Center()
    apply_config(center, config)
    assert [p.id for p in center.providers] == ["openai", "deepseek", "local", "claude"]
    assert center.default_provider_id == "deepseek"
    assert center.default_provider is not None and center.default_provider.default_model == "deepseek-chat"
    assert [s.name for s in center.skills] == ["terse", "house-style"]
    assert [s.name for s in center.mcp_servers] == ["time", "github"]
    assert center.settings == {
        "theme": "visindigo-dark",
        "keys": {"new-dialog": "ctrl+n", "regenerate": "ctrl+r,f5"},
        "prompt_dir": str(paths.config_dir / "prompts"),
        "default_model": "deepseek-chat",
        "max_tool_rounds": 16,
        "max_tool_calls": 32,
    }
    assert center.config is config


def test_without_a_configured_default_the_first_provider_is_the_default(paths: Paths) -> None:
    write(paths, '[providers.b]\nkind = "scripted"\n[providers.a]\nkind = "scripted"\n')
    center = Center()
    apply_config(center, load_config(paths)[0])
    assert center.default_provider_id == "b"
    assert "max_tool_rounds" not in center.settings  # the run loop keeps its own default


def test_center_open_reads_the_config_and_reports_its_problems(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text(
        'theme = 5\n[providers.local]\nkind = "openai"\nbase_url = "http://127.0.0.1:9/v1"\n', encoding="utf-8"
    )
    center = Center.open(home)
    try:
        assert [p.id for p in center.providers] == ["local"]
        assert center.paths is not None and center.paths.config_file == home / "config" / "config.toml"
        [notice] = center.notices
        assert notice.startswith(str(home / "config" / "config.toml") + ": theme: ")
    finally:
        center.close()


def test_center_open_with_explicit_config_and_data_paths(tmp_path: Path) -> None:
    config_file = tmp_path / "elsewhere" / "vis.toml"
    config_file.parent.mkdir()
    config_file.write_text('[providers.x]\nkind = "scripted"\n', encoding="utf-8")
    center = Center.open(config_path=config_file, data_dir=tmp_path / "data")
    try:
        assert [p.id for p in center.providers] == ["x"]
        assert (tmp_path / "data" / "dialogs.sqlite3").exists()
    finally:
        center.close()


def test_an_api_key_reaches_no_dialog_log_export_store_or_message(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "sk-very-secret-4242"
    home = tmp_path / "home"
    with caplog.at_level(logging.DEBUG):
        center = Center.open(home)
        assert center.paths is not None
        provider = Provider("p", kind="openai", base_url="http://127.0.0.1:9/v1", api_key=secret)
        cfg.save_provider(center.paths, provider, api_key=secret)
        center.add_provider(provider)
        dialog = center.create_dialog()
        dialog.provider_id = "p"
        dialog.append_message(Role.USER, "hello")
        exported = export_json(center, dialog.id) + export_markdown(center, dialog.id)
        center.close()
        reopened = Center.open(home)
        shown = repr(reopened.providers) + repr(reopened.config) + "".join(reopened.notices)
        assert reopened.get_provider("p") is not None and reopened.get_provider("p").api_key == secret  # type: ignore[union-attr]
        reopened.close()
    assert secret not in exported + shown + caplog.text
    for path in (home / "data").rglob("*"):
        assert secret.encode() not in path.read_bytes(), path
    assert secret not in (home / "config" / "config.toml").read_text(encoding="utf-8")
    assert secret in (home / "config" / "credentials.toml").read_text(encoding="utf-8")
    if os.name == "posix":
        assert (home / "config" / "credentials.toml").stat().st_mode & 0o077 == 0
