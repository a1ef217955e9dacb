#!/usr/bin/env bash
# `errpages check` with workflow commands: each problem annotates its line in the pull request.
set -euo pipefail
args=(check --content "${ERRPAGES_CONTENT:-content}" --format github)
if [ "${ERRPAGES_STRICT:-true}" = "true" ]; then args+=(--strict); fi
exec errpages "${args[@]}"
