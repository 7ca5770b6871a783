"""What the TUI changes in Textual, seen from a fresh interpreter: every Textual module's and class's members
recorded before any visindigo.tui module is imported, after importing them all, and after making the app."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.tui.platform.privates import ROOT

#: Runs in a fresh interpreter: records what every Textual module and class holds, imports every
#: visindigo.tui module, checks nothing changed; then makes the app and reports what did change.
SNAPSHOT_SCRIPT = """
import importlib, inspect, json, pkgutil, sys
import textual.app, textual.dom, textual.widget, textual.widgets, textual.drivers.linux_driver
import textual._styles_cache, textual.reactive
from textual.widgets import TextArea, Markdown, Static


def snapshot():
    held = {}
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] not in ("textual", "rich") or module is None:
            continue
        for key, value in list(vars(module).items()):
            held[(name, key)] = id(value)
            if inspect.isclass(value) and value.__module__ == name:
                for attribute, member in list(vars(value).items()):
                    held[(name + ":" + value.__qualname__, attribute)] = id(member)
    return held


before = snapshot()
from visindigo.tui.platform import compat

targets = compat.patched_targets()
originals = {target: inspect.getattr_static(compat.resolve(target[0]), target[1]) for target in targets}
import visindigo.tui

for info in pkgutil.walk_packages(visindigo.tui.__path__, "visindigo.tui."):
    importlib.import_module(info.name)
after_imports = snapshot()
changed_by_imports = sorted(k for k, v in before.items() if k in after_imports and after_imports[k] != v)
still_textual = [
    [owner, name]
    for (owner, name), original in originals.items()
    if inspect.getattr_static(compat.resolve(owner), name) is original
    and getattr(getattr(compat.resolve(owner), name), "__module__", "").split(".")[0] == "textual"
]

from visindigo.engine import Center
from visindigo.tui.app import VisindigoApp

app = VisindigoApp(Center())
after_app = snapshot()
changed_by_app = sorted(k for k, v in before.items() if k in after_app and after_app[k] != v)
print(json.dumps({
    "modules": sum(1 for _ in pkgutil.walk_packages(visindigo.tui.__path__, "visindigo.tui.")),
    "targets": [list(t) for t in targets],
    "changed_by_imports": [list(k) for k in changed_by_imports],
    "still_textual": still_textual,
    "changed_by_app": [list(k) for k in changed_by_app],
    "on_the_app": sorted(set(vars(app)) & {"_display", "_handle_exception", "_fatal_error", "driver_class"}),
    "driver": app.driver_class.__name__,
}))
"""


def run_snapshot() -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-c", SNAPSHOT_SCRIPT], capture_output=True, text=True, timeout=180, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]
