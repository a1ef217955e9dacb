"""Error pages inside docs: a Sphinx project with errpages.sphinx, and a MkDocs project
fed by `errpages export markdown`, on the corpus of `benchmarks.corpus`.

    python -m benchmarks.docs [N]     (default 1000)

Prints, each as the whole command's wall time: Sphinx's first build, a build with nothing
changed and a build after one record's meaning was edited (with how many documents Sphinx
read again); the Markdown export, the same export again (nothing to write) and after the
edit (how many files it wrote), and `mkdocs build --strict` of the export, with every
page in MkDocs' navigation (no `nav`) and with only the errors' index in it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.corpus import corpus_folder

BIN = Path(sys.executable).parent


def timed(command: list[str], cwd: Path) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=True)
    return time.perf_counter() - started, done.stdout


def edit_one(content: Path) -> None:
    record = sorted((content / "errors").rglob("*.yaml"))[0]
    text = record.read_text()
    record.write_text(text.replace("meaning: >-\n", "meaning: >-\n  Edited.\n", 1))


def sphinx(root: Path, content: Path) -> None:
    docs = root / "docs"
    docs.mkdir()
    conf = (
        f'project = "Bench"\nextensions = ["errpages.sphinx"]\nerrpages_content = {str(content)!r}'
    )
    (docs / "conf.py").write_text(conf + "\n")
    (docs / "index.rst").write_text("Bench\n=====\n\n.. toctree::\n\n   errors/index\n")
    command = [str(BIN / "sphinx-build"), "--no-color", "-W", "-j", "auto", "-b", "html"]
    command += ["docs", "out"]
    first, _ = timed(command, root)
    again, _ = timed(command, root)
    edit_one(content)
    edited, said = timed(command, root)
    read = len(re.findall(r"^reading sources\.\.\. ", said, re.M)) or said.count("reading sources")
    print(f"sphinx-build -j auto: first {first:.1f} s, nothing changed {again:.1f} s, ", end="")
    print(f"one record edited {edited:.1f} s ({read} read again)")


def mkdocs(root: Path, content: Path) -> None:
    (root / "docs").mkdir()
    (root / "docs" / "index.md").write_text("# Bench\n")
    (root / "mkdocs.yml").write_text(
        "site_name: Bench\nmarkdown_extensions: [pymdownx.highlight, pymdownx.superfences]\n"
    )
    export = [sys.executable, "-m", "errpages", "export", "markdown", "docs/errors"]
    export += ["--content", str(content)]
    first, _ = timed(export, root)
    again, said_again = timed(export, root)
    edit_one(content)
    edited, said = timed(export, root)
    build = [str(BIN / "mkdocs"), "build", "--strict", "-q"]
    built, _ = timed(build, root)
    page = next((root / "site" / "errors").glob("*/index.html")).stat().st_size
    with (root / "mkdocs.yml").open("a") as config:
        config.write("nav: [index.md, errors/index.md]\nnot_in_nav: /errors/\n")
    narrow, _ = timed(build, root)
    small = next((root / "site" / "errors").glob("*/index.html")).stat().st_size
    print(f"export markdown: first {first:.1f} s, again {again:.1f} s ({said_again.strip()}),")
    print(f"  one record edited {edited:.1f} s ({said.strip()})")
    print(f"mkdocs build --strict: every page in the nav {built:.1f} s ({page:,} B a page), ")
    print(f"  the errors' index only {narrow:.1f} s ({small:,} B a page)")


def main(count: int) -> None:
    corpus = corpus_folder(count)
    with tempfile.TemporaryDirectory(prefix="errpages-docs-bench-") as temp:
        for name, run in (("sphinx", sphinx), ("mkdocs", mkdocs)):
            root = Path(temp) / name
            root.mkdir()
            content = root / "content"
            shutil.copytree(corpus, content)
            print(f"{count} errors, {name}:")
            run(root, content)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
