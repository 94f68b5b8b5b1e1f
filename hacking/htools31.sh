#!/usr/bin/env bash
# The htools of Ganeti 3.1 (hbal, hail, hroller, hspace, hcheck), as a second
# oracle beside 3.0.2's: Debian's ganeti-htools-3.1 from bookworm-backports,
# downloaded by backports.sh (an apt configuration of the project's own; the
# machine's is not changed) and unpacked under $HTOOLS31_DIR (default
# .cache/htools-3.1).  Prints the directory holding hbal; the binaries run
# on Debian 12 beside 3.0's.
#
#   HTOOLS_HBAL=$(hacking/htools31.sh)/hbal make differential
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir=${HTOOLS31_DIR:-$(dirname "$here")/.cache/htools-3.1}
bin=$dir/root/usr/lib/ganeti/3.1/usr/bin
if [ -x "$bin/hbal" ]; then
    echo "$bin"
    exit 0
fi
deb=$("$here/backports.sh" "$dir" ganeti-htools-3.1)
rm -rf "$dir/root"
dpkg -x "$deb" "$dir/root"
"$bin/hbal" --version | head -n 1 >&2
echo "$bin"
