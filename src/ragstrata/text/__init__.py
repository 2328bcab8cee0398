"""Language-aware text utilities shared by every stage (no I/O, no model).

``tokens``: word / identifier tokenization with code-point spans and identifier splitting.
"""
