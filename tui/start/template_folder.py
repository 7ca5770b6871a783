"""The folder the template screens read and write: the config's, or a temporary one removed when the app ends.

Without a config (`--demo`, or a Center made in code) there is no folder of the user's to write to, so the
library is a temporary folder; the demo puts a sample template in it. Every way out of the app (quit, a signal,
the terminal gone, a crash) calls `remove`.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from visindigo.engine import Center

if TYPE_CHECKING:
    from tempfile import TemporaryDirectory

    from visindigo.engine.templates.library import TemplateLibrary

log = logging.getLogger(__name__)


class TemplateFolder:
    """The template library of one app run, loaded when first asked for."""

    def __init__(self, center: Center, *, demo: bool) -> None:
        self.center = center
        self.demo = demo
        self._library: TemplateLibrary | None = None
        self._temporary: TemporaryDirectory[str] | None = None

    def library(self) -> TemplateLibrary:
        """The template folder of the config (created on first write), loaded once."""
        if self._library is None:
            from visindigo.engine.templates.library import TemplateLibrary

            folder = ""
            if not self.demo:
                folder = str(self.center.settings.get("prompt_dir") or "")
                if not folder and self.center.paths is not None:
                    folder = str(self.center.paths.prompt_dir)
            if not folder:
                import tempfile

                self._temporary = tempfile.TemporaryDirectory(prefix="visindigo-templates-")
                folder = self._temporary.name
                if self.demo:
                    from visindigo.tui.start.demo import write_sample_templates

                    write_sample_templates(Path(folder))
            self._library = TemplateLibrary(folder)
        return self._library

    def files_word(self) -> str:
        """What the template screen calls the folder's templates: the demo's is no library of the user's."""
        if self.demo:
            return "demo folder"
        if self._temporary is not None:
            return "a temporary folder"
        return "your library"

    def remove(self) -> None:
        """Remove the temporary folder, if there is one."""
        folder, self._temporary = self._temporary, None
        if folder is not None:
            try:
                folder.cleanup()
            except OSError:
                log.warning("could not remove the temporary folder %s", folder.name)
