"""Attached files on screen: the chips over the composer, the line and the picture in a message."""
