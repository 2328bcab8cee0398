"""The package version: written into every index manifest and reported by the servers."""

__version__ = "0.1.0"
