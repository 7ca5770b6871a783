"""What shows a dialog: `MessagePane(dialog)` and its list and views, the streaming Markdown, tool blocks, the
reasoning drawer, the composer and the status line. Mountable anywhere, any number side by side."""
