"""The entry point: `errpages` and `python -m generator`.

Only the listing module is imported before `errpages build` starts listing
the content folder in a child; the command line and the build pipeline (with
Jinja2, markdown-it-py and Pygments) are imported while it lists.
"""

import sys

from generator.listing import start_early_listing


def main() -> None:
    start_early_listing(sys.argv[1:])
    from generator.cli import main as run_command_line

    run_command_line()


if __name__ == "__main__":
    main()
