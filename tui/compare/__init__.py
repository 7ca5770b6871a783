"""One question to several models side by side: the comparison screen, its columns and headers, the picker,
the diff, divergences and scores."""
