"""The seam (issue 23 step 2): `tui/platform/` is the only code that names a Textual or Rich private; each shim
there is recorded in `compat`, cites its upstream report, and is installed by the app, never by an import;
on a Textual other than the one it was checked on a shim stays off, with one line in the log.

The private names are found by `tests/tui/platform/privates.py`, from a deny-list made from the installed
Textual and Rich each time (see there for what counts).
"""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.tui.platform.privates import ROOT, TUI, Use, census, deny_list, uses_in
from tests.tui.platform.textual_snapshot import run_snapshot
from visindigo.tui.platform import compat

PLATFORM = TUI / "platform"
UPSTREAM_DIR = ROOT / "docs" / "upstream"

#: Files outside the seam that still name Textual privates. It must become EMPTY: the helpers of issue 23
#: step 3 replace these with public API (stream: tui/chat/markdown/*; shape: tui/app.py and the message
#: list), and the lead empties it on merge. A file may only leave it (the test fails while a listed file is
#: already clean, so the list cannot keep a stale entry).
NOT_YET_IN_THE_SEAM: set[str] = set()

#: The most private uses the seam may have, its record in `compat` aside (each entry there is the check of a
#: use counted here; `test_every_private_a_shim_uses_is_recorded_in_compat` keeps the two in step).
SEAM_BUDGET = 45


@pytest.fixture(scope="module")
def found() -> dict[str, list[Use]]:
    return census()


def test_the_deny_list_is_made_from_the_installed_textual_and_rich() -> None:
    deny = deny_list()
    # names of each kind the finder must know: a method, an attribute set in __init__, a mangled field, a slot,
    # a module-level function, a private module of each package, a name reached by string
    for name in ("_size_updated", "_exit_renderables", "_Static__content", "_ansi", "_watch", "__watchers"):
        assert deny.denies(name), name
    for module in ("textual._compositor", "textual.widgets._markdown", "rich._unicode_data"):
        assert module in deny.modules and deny.private_module(module)
    assert deny.denies("_reactive_anything")  # Textual stores reactives under names it builds
    assert not deny.denies("__init__") and not deny.denies("_") and not deny.denies("render_line")
    assert len(deny.names) > 1000


def test_the_finder_sees_each_kind_of_use(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        textwrap.dedent(
            '''
            """A module naming Textual privates in every way the finder must see."""
            import os
            from textual._compositor import LayoutUpdate
            from textual.widgets import Static, TextArea
            from textual.widgets._markdown import MarkdownBlock


            class Own:
                def __init__(self) -> None:
                    self._content = 1  # a plain class's own field, though Static has one of that name

                def read(self) -> int:
                    return self._content


            class Composer(TextArea):
                async def _on_key(self, event: object) -> None:  # overrides TextArea's private handler
                    self._size = None  # overwrites Widget's


            def reach(widget: Static) -> object:
                os._exit  # not Textual's
                getattr(widget, "_Static__content")
                return widget._render_markup
            '''
        )
    )
    spec = importlib.util.spec_from_file_location("seam_probe", probe)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    uses = {(use.line, use.name) for use in uses_in(probe, module=module)}
    assert uses == {
        (4, "textual._compositor"),
        (6, "textual.widgets._markdown"),
        (18, "def _on_key"),
        (19, "_size"),
        (24, "'_Static__content'"),
        (25, "_render_markup"),
    }


def test_no_textual_or_rich_private_is_named_outside_the_seam(found: dict[str, list[Use]]) -> None:
    outside = {path: uses for path, uses in found.items() if not path.startswith("tui/platform/")}
    new = {path: [str(use) for use in uses] for path, uses in outside.items() if path not in NOT_YET_IN_THE_SEAM}
    assert new == {}, "move these into tui/platform/ (a function with a public name) or use Textual's public API"
    clean = sorted(NOT_YET_IN_THE_SEAM - set(outside))
    assert clean == [], "these no longer name a private: take them off NOT_YET_IN_THE_SEAM"


def test_the_seam_stays_within_its_budget(found: dict[str, list[Use]]) -> None:
    inside = {path: uses for path, uses in found.items() if path.startswith("tui/platform/")}
    counted = sum(len(uses) for path, uses in inside.items() if path != "tui/platform/compat.py")
    assert 0 < counted <= SEAM_BUDGET, {path: len(uses) for path, uses in inside.items()}


def _declared(shims: list[compat.Shim]) -> set[str]:
    names: set[str] = set()
    for shim in shims:
        for private in shim.uses:
            module, _, qualname = private.owner.partition(":")
            names |= {module, *qualname.split("."), *private.name.split(".")}
            names |= {mention.strip("\"'") for mention in private.mentions}
    return names


def _upstream_of(path: Path) -> list[str]:
    """The module's UPSTREAM constant (a path or a tuple of paths)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "UPSTREAM" for t in node.targets):
            value = ast.literal_eval(node.value)
            return [value] if isinstance(value, str) else list(value)
    return []


def test_every_shim_cites_its_upstream_report(found: dict[str, list[Use]]) -> None:
    shim_modules = [
        ROOT / path for path in found if path.startswith("tui/platform/") and path.rsplit("/", 1)[1] != "compat.py"
    ]
    assert len(shim_modules) >= 6
    for path in shim_modules:
        reports = _upstream_of(path)
        assert reports, f"{path.name} names Textual privates but no UPSTREAM report"
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        for report in reports:
            assert (ROOT / report).is_file(), report
            assert f"Upstream report: {report}" in docstring, f"{path.name}'s docstring does not cite {report}"
    for shim in compat.SHIMS.values():
        assert (ROOT / shim.upstream).is_file(), shim.upstream


def test_every_private_a_shim_uses_is_recorded_in_compat(found: dict[str, list[Use]]) -> None:
    """What a shim module names is what `compat` checks before that shim is installed."""
    by_report: dict[str, list[compat.Shim]] = {}
    for shim in compat.SHIMS.values():
        by_report.setdefault(shim.upstream, []).append(shim)
    for path, uses in found.items():
        if not path.startswith("tui/platform/") or path.endswith("/compat.py"):
            continue
        shims = [shim for report in _upstream_of(ROOT / path) for shim in by_report.get(report, [])]
        assert shims, f"{path}: no compat entry for its UPSTREAM report"
        declared = _declared(shims)
        unchecked = sorted(str(use) for use in uses if use.name.removeprefix("def ").strip("'") not in declared)
        assert unchecked == [], f"{path}: privates compat does not check"


def test_the_upstream_reports_carry_a_reproduction_for_plain_textual() -> None:
    reports = sorted(UPSTREAM_DIR.glob("*.md"))
    assert {Path(shim.upstream).name for shim in compat.SHIMS.values()} <= {path.name for path in reports}
    for report in reports:
        if report.name == "README.md":
            continue
        text = report.read_text(encoding="utf-8")
        blocks = [block.split("```", 1)[0] for block in text.split("```python\n")[1:]]
        assert blocks, f"{report.name}: no reproduction script"
        script = blocks[0]
        compile(script, report.name, "exec")
        assert "import textual" in script or "from textual" in script or "from rich" in script, report.name
        assert "visindigo" not in script, f"{report.name}: the reproduction must run against plain Textual"


def test_compat_knows_the_pinned_series() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    major, minor = compat.TEXTUAL_SERIES.split(".")
    assert f'"textual>={compat.CHECKED_ON["textual"]},<{major}.{int(minor) + 1}"' in pyproject
    assert compat.textual_version().startswith(compat.TEXTUAL_SERIES + ".")
    assert compat.series_problem() is None
    for name in compat.SHIMS:
        assert compat.enabled(name), name


# --- installed by the app, not by an import ------------------------------------------------------------------


def test_importing_every_tui_module_leaves_textual_as_it_was_and_making_the_app_installs_the_shims() -> None:
    report = run_snapshot()
    assert int(report["modules"]) > 80  # type: ignore[call-overload]
    assert report["changed_by_imports"] == []
    targets = sorted(report["targets"])  # type: ignore[call-overload]
    assert targets == [
        ["textual._styles_cache:StylesCache", "get_inner_outer"],
        ["textual.dom", "_watch"],
        ["textual.widget:Widget", "_size_updated"],
    ]
    assert sorted(report["still_textual"]) == targets  # type: ignore[call-overload]
    # the app replaces exactly what compat lists, process-wide, and the rest on itself only
    assert sorted(report["changed_by_app"]) == targets  # type: ignore[call-overload]
    assert report["on_the_app"] == ["_display", "_fatal_error", "_handle_exception", "driver_class"]
    assert report["driver"] == "SturdyLinuxDriver"


# --- another Textual: the shim stays off, with one line in the log ---------------------------------------------

FAKE_SCRIPT = """
import asyncio, json, sys
from pathlib import Path
from visindigo.engine import applog

logs = Path(sys.argv[1])
applog.configure(1, logs)
import textual.app, textual.dom, textual.widget
from textual.widget import Widget

{fake}

fake_size_updated = Widget._size_updated
fake_watch = textual.dom._watch
from visindigo.engine import Center
from visindigo.tui.app import VisindigoApp

apps = [VisindigoApp(Center()), VisindigoApp(Center())]  # a second app logs nothing more


async def draw():
    async with apps[0].run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        return any(widget.region.height > 0 for widget in apps[0].screen.query("*"))


async def sturdy():
    return getattr(apps[1].driver_class(apps[1]), "sturdy", False)


drawn = asyncio.run(draw())
driver_sturdy = asyncio.run(sturdy())
for handler in __import__("logging").getLogger("visindigo").handlers:
    handler.flush()
print(json.dumps({{
    "layout_once_off": Widget._size_updated is fake_size_updated,
    "watch_off": textual.dom._watch is fake_watch,
    "on_the_app": sorted(k for k in vars(apps[1]) if k in ("_display", "_handle_exception", "_fatal_error")),
    "driver_sturdy": driver_sturdy,
    "drawn": drawn,
    "log": [line for line in (logs / "visindigo.log").read_text().splitlines() if "shim" in line],
}}))
"""


def run_faked(tmp_path: Path, fake: str) -> dict[str, object]:
    script = FAKE_SCRIPT.format(fake=textwrap.dedent(fake))
    result = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "logs")],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_a_patched_function_with_other_parameters_keeps_its_shim_off_with_one_log_line(tmp_path: Path) -> None:
    report = run_faked(
        tmp_path,
        """
        textual_size_updated = Widget._size_updated

        def _size_updated(self, size, virtual_size, container_size, layout=True, *, animate=False):
            return textual_size_updated(self, size, virtual_size, container_size, layout)

        Widget._size_updated = _size_updated  # as a Textual whose method grew a parameter
        """,
    )
    assert report["layout_once_off"] is True  # Textual's (here: the fake) method is left in place
    assert report["watch_off"] is False  # the other shims are on
    assert report["on_the_app"] == ["_display", "_fatal_error", "_handle_exception"]
    assert report["driver_sturdy"] is True
    assert report["drawn"] is True  # the app runs on Textual's own layout path
    log = report["log"]
    assert isinstance(log, list) and len(log) == 1, log
    assert "layout_once shim is off" in log[0] and "layout=True, *, animate=False" in log[0]
    assert "docs/upstream/second-layout-pass.md" in log[0]


def test_a_missing_private_attribute_keeps_its_shim_off(tmp_path: Path) -> None:
    report = run_faked(tmp_path, "del textual.app.App._fatal_error  # as a Textual that renamed it")
    assert report["on_the_app"] == ["_display"]  # the crash hooks stay off; the output stage is on
    assert report["layout_once_off"] is False
    log = report["log"]
    assert isinstance(log, list) and len(log) == 1 and "crash shim is off" in log[0], log
    assert "has no _fatal_error" in log[0]


def test_a_textual_outside_the_checked_series_gets_no_shim(tmp_path: Path) -> None:
    report = run_faked(
        tmp_path,
        """
        import importlib.metadata
        from visindigo.tui.platform import compat
        real_version = importlib.metadata.version
        importlib.metadata.version = lambda name: "8.3.0" if name == "textual" else real_version(name)
        compat.dist_info_version = lambda name: ""  # as a Textual with no dist-info folder beside it
        """,
    )
    assert report["layout_once_off"] is True and report["watch_off"] is True
    assert report["on_the_app"] == [] and report["driver_sturdy"] is False
    assert report["drawn"] is True
    log = report["log"]
    assert isinstance(log, list) and len(log) == 1, log
    assert "Textual 8.3.0 is not the 8.2 series" in log[0] and "every Textual shim is off" in log[0]


def test_textuals_version_is_read_from_its_dist_info_folder_as_importlib_metadata_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The version check runs before the first frame, without importlib.metadata (issue 23: start-up); it reads
    the folder name beside the imported package, and falls back to importlib.metadata when that is not one."""
    import importlib.metadata

    assert compat.dist_info_version("textual") == importlib.metadata.version("textual")
    assert compat.dist_info_version("rich") == importlib.metadata.version("rich")
    (tmp_path / "fakepkg").mkdir()
    (tmp_path / "fakepkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "fakepkg-1.2.3.dist-info").mkdir()
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "fakepkg", raising=False)
    assert compat.dist_info_version("fakepkg") == "1.2.3"
    (tmp_path / "fakepkg-1.2.4.dist-info").mkdir()  # two side by side: which one is imported is not known here
    assert compat.dist_info_version("fakepkg") == ""


def test_a_name_a_shim_relies_on_is_looked_for_in_the_functions_code() -> None:
    """`mentions` is checked on the code's strings (nested functions' too), not on its source text."""
    assert compat.problem(compat.SHIMS["watchers"].uses) is None  # `_watch` stores "__watchers" by name

    def stores(node: object) -> None:
        def inner() -> None:
            setattr(node, "__watchers", {})

        inner()

    uses = [compat.Private("tests.tui.platform.test_seam", "_no_such_use", mentions=('"__watchers"',))]
    globals()["_no_such_use"] = stores
    try:
        assert compat.problem(uses) is None
        globals()["_no_such_use"] = lambda node: None  # as a Textual that keeps its watchers elsewhere
        assert compat.problem(uses) == 'tests.tui.platform.test_seam._no_such_use no longer uses "__watchers"'
    finally:
        del globals()["_no_such_use"]


def test_compat_reports_a_difference_in_process_and_forgets_it_on_reset(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check itself, without a subprocess: a faked signature is found, and reset() starts afresh."""
    from textual.drivers.linux_driver import LinuxDriver

    def run_input_thread(self: LinuxDriver, timeout: float = 0.1) -> None:  # another Textual's parameters
        return None

    compat.reset()
    monkeypatch.setattr(LinuxDriver, "run_input_thread", run_input_thread)
    try:
        assert compat.enabled("terminal_driver") is False
        assert "run_input_thread takes (self, timeout=0.1), checked with (self)" in compat.off()["terminal_driver"]
        assert compat.enabled("crash") is True
    finally:
        monkeypatch.undo()
        compat.reset()
    assert compat.enabled("terminal_driver") is True
