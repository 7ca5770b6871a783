"""The workstation screen: the dialog tree, the message pane, its keys, panels and the modals it opens."""
