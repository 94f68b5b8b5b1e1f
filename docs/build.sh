#!/usr/bin/env bash
# Build the documentation site of the collection: every module, the role's
# argument spec, the doc fragments and examples, as rendered by antsibull-docs,
# then HTML by Sphinx with warnings as errors.  Run by `make docs` in its venv.
#   docs/build.sh OUT_DIR    (the site is OUT_DIR/html)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:?usage: docs/build.sh OUT_DIR}
rm -rf "$OUT"
mkdir -p "$OUT/rst"
chmod 700 "$OUT/rst"          # antsibull-docs wants it writable by its owner only
antsibull-docs --config-file "$HERE/antsibull-docs.cfg" collection --cleanup everything \
  --use-current --dest-dir "$OUT/rst" ganeti.htools
cp "$HERE/index.rst" "$HERE/ansible_references.rst" "$OUT/rst/"
sphinx-build -q -b html -c "$HERE" -W --keep-going "$OUT/rst" "$OUT/html"
echo "== docs: $OUT/html/index.html"
