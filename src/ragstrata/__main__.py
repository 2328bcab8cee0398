"""`python -m ragstrata` runs the CLI."""

from ragstrata.cli import main

if __name__ == "__main__":
    main()
