#!/usr/bin/env bash
# ansible-test sanity of this checkout, with the ansible-test of a given venv
# (`make sanity` uses .venv; hacking/sanity_matrix.sh one venv per
# ansible-core release).
#
#   hacking/sanity.sh VENV WORKDIR [ansible-test sanity options...]
#
# ansible-test needs the collection at .../ansible_collections/ganeti/htools:
# the files git knows (tracked and untracked-but-not-ignored) are copied to
# WORKDIR/ansible_collections/ganeti/htools, and the copy is made its own git
# repository, so that ansible-test lists exactly those files (otherwise it
# would find this checkout's .git, where .cache is ignored).  Each WORKDIR is
# a separate copy, so that several releases can be tested side by side.
set -euo pipefail

if [ "$#" -lt 2 ]; then
    echo "usage: $0 VENV WORKDIR [ansible-test sanity options...]" >&2
    exit 2
fi
venv=$(cd "$1" && pwd)
workdir=$2
shift 2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
copy=$workdir/ansible_collections/ganeti/htools

rm -rf "$workdir"
mkdir -p "$copy"
copy=$(cd "$copy" && pwd)
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    # files deleted but still tracked are left out
    git -C "$root" ls-files -z --cached --others --exclude-standard \
        | while IFS= read -r -d '' f; do
              if [ -e "$root/$f" ] || [ -L "$root/$f" ]; then printf '%s\0' "$f"; fi
          done \
        | tar -C "$root" --null -T - -cf - | tar -C "$copy" -xf -
else
    tar -C "$root" --exclude=./.git --exclude=./.venv --exclude=./.venv-docs --exclude=./.cache \
        --exclude=./.ansible --exclude=./dist --exclude=./tests/output --exclude=__pycache__ \
        --exclude=.pytest_cache -cf - . | tar -C "$copy" -xf -
fi
(cd "$copy" && git init -q && git add -A)

"$venv/bin/python" "$root/hacking/ansible_test_get_pip.py"
pyver=$("$venv/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
cd "$copy"
# ansible-test runs the ansible of its own venv: put it first
PATH=$venv/bin:$PATH exec "$venv/bin/ansible-test" sanity --venv --python "$pyver" --color no "$@"
