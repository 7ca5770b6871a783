"""A reply's Markdown while it streams: settled blocks go through Textual's Markdown, the growing end is drawn
by its own small widget; and very long messages, folded or mounted in parts."""
