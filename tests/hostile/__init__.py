"""The hostile suite of issue 14 (a package so its conftest does not shadow tests/conftest.py)."""
