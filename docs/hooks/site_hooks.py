"""MkDocs hooks (mkdocs.yml `hooks:`): what the docs site builds from the code instead of keeping a copy.

- `reference/cli.md` from the command line's parsers and `reference/configuration.md` from the config schema
  (cli_reference.py, config_reference.py), so neither reference can drift from the program;
- `screens/*.svg`, the snapshot tests' SVGs (screenshots.py), so a picture is the screen the tests check today;
- the navigation: mkdocs.yml lists the pages in their order, and any page under docs/ it does not list is added
  at the end under "More", so a new page needs no edit here to be built and found (move it into place in
  mkdocs.yml when it has one).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cli_reference import cli_reference
from config_reference import config_reference
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from screenshots import MissingSnapshot, screens

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ("reference/cli.md", "reference/configuration.md")


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    listed = set(_pages(config.nav or []))
    docs = Path(config.docs_dir)
    unlisted = sorted(
        path.relative_to(docs).as_posix()
        for path in docs.rglob("*.md")
        if "hooks" not in path.relative_to(docs).parts and path.relative_to(docs).as_posix() not in listed
    )
    if unlisted and config.nav is not None:
        config.nav.append({"More": unlisted})
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    from visindigo.cli import build_parser

    files.append(File.generated(config, GENERATED[0], content=cli_reference(build_parser())))
    files.append(File.generated(config, GENERATED[1], content=config_reference()))
    try:
        pictures = screens(ROOT / "tests")
    except MissingSnapshot as error:
        raise PluginError(f"a docs picture has no snapshot: {error}") from error
    for name, svg in pictures.items():
        files.append(File.generated(config, name, abs_src_path=str(svg)))
    return files


def _pages(nav: Any) -> list[str]:
    """Every page file a nav (as mkdocs.yml writes it: lists, one-key tables, strings) names."""
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in _pages(value)]
    if isinstance(nav, list):
        return [page for item in nav for page in _pages(item)]
    return []
