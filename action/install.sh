#!/usr/bin/env bash
# Install errpages from the action's own checkout (the version the workflow names).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
python -m pip install --quiet --disable-pip-version-check "$here"
errpages --version
