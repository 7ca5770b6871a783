"""Visindigo: a terminal workstation for large language models.

The importable parts are `visindigo.engine` (pure Python, no UI), `visindigo.tui` (the Textual app) and
`visindigo.themes`. Importing this package loads neither of them, so `visindigo --version` stays instant.
"""

__version__ = "0.1.0"
