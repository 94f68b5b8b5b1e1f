#!/usr/bin/env bash
# Ganeti 3.1 beside the host's 3.0, for the namespace lab (GNTLAB_GANETI=3.1
# tests/lab/up.sh): Debian's ganeti-3.1, ganeti-haskell-3.1 and
# ganeti-htools-3.1 from bookworm-backports (backports.sh: an apt
# configuration of the project's own), unpacked under $GANETI31_DIR (default
# .cache/ganeti-3.1) and copied to /usr/lib/ganeti/3.1 and
# /usr/share/ganeti/3.1, where their code expects to be (the Python
# constants and the Haskell binaries name these paths).  The host's
# /etc/ganeti/lib and share symlinks stay on 3.0: only processes that see a
# private /etc/ganeti (the lab's namespace, see up.sh) run 3.1.  Missing
# Python dependencies come from the machine's own apt sources.  Root only.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir=${GANETI31_DIR:-$(dirname "$here")/.cache/ganeti-3.1}
lib=/usr/lib/ganeti/3.1
share=/usr/share/ganeti/3.1
installed() { [[ -x $lib/usr/sbin/ganeti-luxid && -x $lib/usr/bin/hbal && -f $share/ganeti/_constants.py ]]; }

[[ $(id -u) == 0 ]] || { echo "ganeti31.sh: must run as root" >&2; exit 1; }
mkdir -p "$dir"
# two labs coming up at once install it once
exec 9>"$dir/.lock"
flock 9
if ! installed; then
  mapfile -t debs < <("$here/backports.sh" "$dir" ganeti-3.1 ganeti-haskell-3.1 ganeti-htools-3.1)
  # the Python modules 3.1 imports (3.0 needs the same ones today)
  mapfile -t pydeps < <(dpkg-deb -f "${debs[0]}" Depends | tr ',' '\n' \
    | sed -n 's/^ *\(python3-[a-z0-9.-]*\).*/\1/p')
  missing=()
  for p in "${pydeps[@]}"; do
    dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
  done
  if (( ${#missing[@]} )); then
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q \
      --no-install-recommends "${missing[@]}" >&2
  fi
  rm -rf "$dir/root"
  for deb in "${debs[@]}"; do dpkg -x "$deb" "$dir/root"; done
  # copy under a temporary name, then rename: never a half-copied tree
  for t in "$lib" "$share"; do
    rm -rf "$t.new"
    cp -a "$dir/root$t" "$t.new"
    rm -rf "$t"
    mv "$t.new" "$t"
  done
fi
installed
echo "Ganeti $(sed -n 's/^RELEASE_VERSION = "\(.*\)"/\1/p' "$share/ganeti/_constants.py") in $lib and $share" >&2
