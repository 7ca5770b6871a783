"""Packaging: every source package is installed, under the visindigo namespace only."""

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_folder_is_listed_for_installation() -> None:
    """A sub-package missing from pyproject works in the checkout but vanishes from `pip install .`."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(config["packages"])
    mapping = config["package-dir"]
    found = set()
    for name, folder in mapping.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder)
            found.add(".".join([name, *relative.parts]) if relative.parts else name)
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
    assert all(name == "visindigo" or name.startswith("visindigo.") for name in listed)


def test_version_and_help_answer_without_loading_the_ui() -> None:
    code = (
        "import sys\n"
        "from visindigo.cli import main\n"
        "try:\n"
        "    main(['--version'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('textual' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["visindigo", "0.1.0", "False"]
