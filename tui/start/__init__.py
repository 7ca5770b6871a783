"""What the app does before and at its first frame: the demo, the store check and repair, the warm-up, and the
small app that reports a broken configuration."""
