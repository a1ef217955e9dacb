"""Golden output: a few representative files of the example site, committed byte for byte.

Regenerate after an intended change with `make golden` (python -m tests.golden),
then read the diff before committing it: the diff is the review.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from errpages.build import build

GOLDEN = Path(__file__).resolve().parent / "golden"
CONTENT = Path(__file__).resolve().parent.parent / "content"
FILES = (
    "index.html",
    "errors/6ba5c6b60f1a1dc5/index.html",
    "errors/e3cdd85d4338744c/index.html",
    "errors/fdffa8e3ed0ceedb/index.html",
    "repos/sgl-project/sglang/index.html",
    "api/errors/6ba5c6b60f1a1dc5.json",
    "api/errors/index.json",
)


def main() -> None:
    with tempfile.TemporaryDirectory() as temp:
        out = Path(temp) / "site"
        report = build(CONTENT, out)
        assert report.written, [d.format() for d in report.diagnostics]
        if GOLDEN.exists():
            shutil.rmtree(GOLDEN)
        for name in FILES:
            target = GOLDEN / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(out / name, target)
    print(f"wrote {len(FILES)} golden files to {GOLDEN}")


if __name__ == "__main__":
    main()
