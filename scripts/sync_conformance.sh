#!/usr/bin/env bash
# Copy the seed-component conformance cases from a shared/ folder into tests/conformance/.
# Usage: scripts/sync_conformance.sh PATH/TO/shared   (the tests never read shared/ themselves)
set -euo pipefail
src="${1:?usage: scripts/sync_conformance.sh PATH/TO/shared}/conformance"
dst="$(dirname "$0")/../tests/conformance"
[ -d "$src" ] || { echo "no conformance folder at $src" >&2; exit 2; }
mkdir -p "$dst"
cp "$src"/*.json "$src"/README.md "$dst"/
echo "synced $(ls "$src"/*.json | wc -l) conformance files into tests/conformance/"
