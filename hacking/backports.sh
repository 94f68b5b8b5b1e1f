#!/usr/bin/env bash
# backports.sh DIR PACKAGE...: download PACKAGEs (.deb files, no
# installation) from Debian's bookworm-backports into DIR, with an apt
# configuration of the project's own under DIR/apt: the machine's apt
# sources are never changed.  Prints the downloaded files, one a line.
set -euo pipefail

dir=$1; shift
(( $# )) || { echo "usage: $0 DIR PACKAGE..." >&2; exit 2; }
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
(cd "$apt" && apt-get "${opts[@]}" download "$@" >&2)
for p in "$@"; do ls "$apt/${p}"_*.deb; done
