"""The history feature: the timeline of a dialog family's questions and the one-line questions its keys ask."""
