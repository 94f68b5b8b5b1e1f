#!/usr/bin/env bash
# The htools of Ganeti 3.1 (hbal, hail, hroller, hspace, hcheck), as a second
# oracle beside 3.0.2's: Debian's ganeti-htools-3.1 from bookworm-backports,
# downloaded with an apt configuration of the project's own (the machine's
# is not changed) and unpacked under $HTOOLS31_DIR (default
# .cache/htools-3.1).  Prints the directory holding hbal; the binaries run
# on Debian 12 beside 3.0's.
#
#   HTOOLS_HBAL=$(hacking/htools31.sh)/hbal make differential
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${HTOOLS31_DIR:-$root/.cache/htools-3.1}
bin=$dir/root/usr/lib/ganeti/3.1/usr/bin
if [ -x "$bin/hbal" ]; then
    echo "$bin"
    exit 0
fi
# the mirror this machine's apt already uses for bookworm: never a name written here
mirror=$(apt-cache policy 2>/dev/null \
    | awk '/ bookworm\/main amd64 Packages/ {print $2; exit}')
mirror=${mirror:-http://deb.debian.org/debian}
apt=$dir/apt
mkdir -p "$apt/etc/sources.list.d" "$apt/state/lists/partial" "$apt/cache/archives/partial"
echo "deb $mirror bookworm-backports main" >"$apt/etc/sources.list"
opts=(-o "Dir::Etc::SourceList=$apt/etc/sources.list" -o "Dir::Etc::SourceParts=$apt/etc/sources.list.d"
      -o "Dir::State=$apt/state" -o "Dir::Cache=$apt/cache" -o "APT::Sandbox::User=root")
apt-get "${opts[@]}" update -q >&2
(cd "$apt" && apt-get "${opts[@]}" download ganeti-htools-3.1 >&2)
rm -rf "$dir/root"
dpkg -x "$apt"/ganeti-htools-3.1_*.deb "$dir/root"
"$bin/hbal" --version | head -n 1 >&2
echo "$bin"
