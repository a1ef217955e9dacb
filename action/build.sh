#!/usr/bin/env bash
# `errpages build` from scratch (a CI machine keeps no cache) with the inputs given.
set -euo pipefail
args=(build --content "${ERRPAGES_CONTENT:-content}" --out "${ERRPAGES_OUT:-site}" --no-cache)
if [ -n "${ERRPAGES_BASE_URL:-}" ]; then args+=(--base-url "$ERRPAGES_BASE_URL"); fi
if [ "${ERRPAGES_STRICT:-true}" = "true" ]; then args+=(--strict); fi
if [ -n "${ERRPAGES_SHARD:-}" ]; then args+=(--shard "$ERRPAGES_SHARD"); fi
exec errpages "${args[@]}"
