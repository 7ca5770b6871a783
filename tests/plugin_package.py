"""A tiny installed package that offers Visindigo tools, for the entry-point tests.

`install_example_tools(folder)` writes the package and its `.dist-info` (METADATA and entry_points.txt, as
pip would) into `folder`; with `folder` on sys.path, `importlib.metadata` finds it like any installed package.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = "visindigo_example_tools"
DIST = "visindigo-example-tools"

SOURCE = '''\
"""Example tools for Visindigo: one function and one command provider."""

from visindigo.engine import command

CALLS = []


def get_weather(city: str) -> dict:
    """The weather in a city (always mild, for tests)."""
    CALLS.append(city)
    return {"city": city, "weather": "mild, 18 °C"}


class Units:
    """A command provider: `@command` methods become tools."""

    @command()
    def to_fahrenheit(self, celsius: float) -> float:
        """Celsius to Fahrenheit."""
        return celsius * 9 / 5 + 32

    def get_commands(self):
        yield self.to_fahrenheit


broken_target = 42
'''

ENTRY_POINTS = f"""\
[visindigo.tools]
weather = {PACKAGE}:get_weather
units = {PACKAGE}:Units
broken = {PACKAGE}:broken_target
missing = {PACKAGE}_nowhere:thing
"""


def install_example_tools(folder: Path) -> Path:
    package = folder / PACKAGE
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(SOURCE, encoding="utf-8")
    info = folder / f"{PACKAGE}-1.2.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {DIST}\nVersion: 1.2\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    return folder
