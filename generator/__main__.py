"""The entry point: `errpages` and `python -m errpages`."""

from errpages.cli import main

if __name__ == "__main__":
    main()
