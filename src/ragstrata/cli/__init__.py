"""Command-line interface: a thin adapter over the library (parse, call, render, map errors)."""

from ragstrata.cli.app import app, main

__all__ = ["app", "main"]
