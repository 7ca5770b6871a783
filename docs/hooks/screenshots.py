"""The docs' pictures are the snapshot tests' SVGs, found at build time, so a picture never shows an old screen.

Each picture the pages show (`screens/<name>.svg`) is named here by the snapshot test that draws it. The SVG is
looked for by its file name anywhere under tests/ (snapshots live in `__snapshots__/<test module>/` folders,
wherever the test modules move), and the build fails when a picture's snapshot is gone or found twice — so a
renamed test is noticed at the next build, not by a reader.
"""

from __future__ import annotations

import glob
from pathlib import Path

#: picture name in the docs → the snapshot's file name without .svg (pytest-textual-snapshot names it after the test)
SCREENS = {
    "main-120x40": "test_demo_main_screen[120x40]",
    "main-80x24": "test_demo_main_screen[80x24]",
    "help-120x40": "test_help_screen[120x40]",
    "approval-120x40": "test_tool_approval_modal[120x40]",
    "first-run-120x40": "test_first_run_120x40",
    "model-picker-80x24": "test_model_picker_80x24",
    "providers-80x24": "test_providers_80x24",
    "provider-form-errors-80x24": "test_provider_form_with_errors_80x24",
    "skills-80x24": "test_skills_80x24",
    "mcp-servers-80x24": "test_mcp_servers_80x24",
    "mcp-server-form-80x24": "test_mcp_server_form_80x24",
    "elicitation-80x24": "test_elicitation_form_80x24",
    "sampling-80x24": "test_sampling_approval_80x24",
    "sign-in-80x24": "test_sign_in_80x24",
    "template-library-120x40": "test_library_search_120x40",
    "template-form-120x40": "test_form_every_field_type_120x40",
    "template-form-errors-80x24": "test_form_required_fields_missing_80x24",
    "scores-80x24": "test_scores_80x24",
    "diff-side-by-side-80x24": "test_diff_side_by_side_80x24",
    "diff-inline-80x24": "test_diff_inline_80x24",
    "theme-light": "test_approval_in_each_theme[visindigo-light]",
    "theme-high-contrast": "test_approval_in_each_theme[visindigo-high-contrast]",
    "theme-colour-blind": "test_approval_in_each_theme[visindigo-colour-blind]",
    "theme-ansi": "test_approval_in_each_theme[visindigo-ansi]",
}


class MissingSnapshot(Exception):
    """A picture whose snapshot SVG is not under tests/, or is there more than once."""


def find_snapshot(tests: Path, stem: str) -> Path:
    """The one SVG called `stem`.svg under `tests`, in any `__snapshots__` folder."""
    pattern = str(tests / "**" / "__snapshots__" / "**" / f"{glob.escape(stem)}.svg")
    found = sorted({Path(path) for path in glob.glob(pattern, recursive=True)})
    if len(found) != 1:
        where = ", ".join(str(path.relative_to(tests)) for path in found) or "nowhere"
        raise MissingSnapshot(f"the snapshot {stem}.svg is under {tests} {len(found)} times ({where}), not once")
    return found[0]


def screens(tests: Path) -> dict[str, Path]:
    """Every picture's name (`screens/<name>.svg` in the site) and the snapshot it is copied from."""
    return {f"screens/{name}.svg": find_snapshot(tests, stem) for name, stem in SCREENS.items()}
