"""Query stage: question -> RouterPlan (intent, anchors, expansions, layers, evidence policy).

Imports nothing from the other stages; no I/O beyond its own data files, no model.
"""
