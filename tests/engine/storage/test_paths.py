"""Where things live: VISINDIGO_HOME, a home argument, --config / --data-dir, platformdirs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from visindigo.engine.paths import HOME_ENV, ensure_dirs, resolve_paths


def test_visindigo_home_holds_config_and_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(HOME_ENV, str(tmp_path))
    paths = resolve_paths()
    assert paths.config_file == tmp_path / "config" / "config.toml"
    assert paths.credentials_file == tmp_path / "config" / "credentials.toml"
    assert paths.prompt_dir == tmp_path / "config" / "prompts"
    assert paths.data_dir == tmp_path / "data"
    assert paths.db_file == tmp_path / "data" / "dialogs.sqlite3"


def test_explicit_paths_beat_a_home_argument_which_beats_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "env"))
    assert resolve_paths(tmp_path / "arg").data_dir == tmp_path / "arg" / "data"
    paths = resolve_paths(tmp_path / "arg", config_path=tmp_path / "my.toml", data_dir=tmp_path / "d")
    assert (paths.config_file, paths.data_dir) == (tmp_path / "my.toml", tmp_path / "d")
    assert paths.credentials_file == tmp_path / "credentials.toml"
    only_config = resolve_paths(config_path=tmp_path / "c" / "x.toml")
    assert only_config.data_dir == tmp_path / "env" / "data"


def test_without_a_home_the_platform_directories_are_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if sys.platform != "linux":
        pytest.skip("XDG variables steer platformdirs on Linux only")
    monkeypatch.delenv(HOME_ENV)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    paths = resolve_paths()
    assert paths.config_file == tmp_path / "xdg-config" / "visindigo" / "config.toml"
    assert paths.data_dir == tmp_path / "xdg-data" / "visindigo"


def test_a_tilde_is_expanded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert resolve_paths("~/vis").data_dir == tmp_path / "vis" / "data"


def test_nothing_is_created_before_ensure_dirs_and_then_privately(tmp_path: Path) -> None:
    paths = resolve_paths(tmp_path / "home")
    assert not (tmp_path / "home").exists()
    ensure_dirs(paths)
    assert paths.config_dir.is_dir() and paths.data_dir.is_dir()
    if os.name == "posix":
        assert paths.data_dir.stat().st_mode & 0o777 == 0o700


def test_importing_the_engine_creates_no_files(tmp_path: Path) -> None:
    env = dict(os.environ, VISINDIGO_HOME=str(tmp_path / "home"), HOME=str(tmp_path / "user"))
    code = "import pkgutil, importlib, visindigo.engine as e\n" + (
        "for i in pkgutil.walk_packages(e.__path__, 'visindigo.engine.'): importlib.import_module(i.name)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_the_test_suite_itself_never_sees_the_real_home(isolated_visindigo_home: Path) -> None:
    assert resolve_paths().data_dir == isolated_visindigo_home / "data"
