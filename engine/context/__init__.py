"""The context a model sees: its window, what a request costs in tokens and dollars, and compaction into a branch.

Nothing here loads at start-up: the modules are imported by what needs them (the run loop, the fit check, the
usage report), and the price catalogue (`catalog`) only on its first lookup.
"""
