#!/usr/bin/env bash
# A Debian 13 (trixie) root for the ansible-core releases that need Python
# 3.12 or newer (2.20, 2.21): Debian 12, the CI machine, has only 3.11.
# Made once with debootstrap from the Debian mirror this machine's apt uses
# (minbase, plus python3, python3-venv, git, ca-certificates, and Debian 13's
# own htools, ganeti-htools-3.1, the oracles of the module tests) and kept in
# $HTOOLS_DEBIAN13_ROOT (default /var/cache/htools-debian13/root); the host's
# CA bundle and resolver are copied in, so that pip reaches PyPI inside it as
# it does outside.  Needs root.
#
#   hacking/debian13_root.sh            # make it (or find it made) and print its path
#
# A lock makes a second caller wait for the first one's build (.ci/run starts
# one in the background while the unit tests run).
set -euo pipefail

ROOT=${HTOOLS_DEBIAN13_ROOT:-/var/cache/htools-debian13/root}
PACKAGES=python3,python3-venv,git,ca-certificates,ganeti-htools-3.1
stamp=$ROOT/.htools-debian13-$PACKAGES

if [ "$(id -u)" != 0 ]; then
    echo "debian13_root.sh: making a Debian 13 root needs root (debootstrap)" >&2
    exit 1
fi
mkdir -p "$(dirname "$ROOT")"
exec 9>"$ROOT.lock"
flock 9

# the mirror this machine's apt already uses: never a name written here
mirror=$(apt-cache policy 2>/dev/null \
    | awk '/ bookworm\/main amd64 Packages/ {print $2; exit}')
mirror=${mirror:-http://deb.debian.org/debian}

if [ ! -e "$stamp" ]; then
    command -v debootstrap >/dev/null || apt-get install -y -q debootstrap
    rm -rf "$ROOT" "$ROOT.new"
    start=$(date +%s)
    debootstrap --variant=minbase --include="$PACKAGES" trixie "$ROOT.new" "$mirror" \
        >"$ROOT.log" 2>&1 || { tail -n 20 "$ROOT.log" >&2; exit 1; }
    mv "$ROOT.new" "$ROOT"
    touch "$stamp"
    echo "debian13_root.sh: made $ROOT in $(( $(date +%s) - start ))s" >&2
fi
# what may have changed on the host since: its CAs (an intercepting proxy's
# among them) and its resolver
cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/ca-certificates.crt"
cp /etc/resolv.conf /etc/hosts "$ROOT/etc/"
echo "$ROOT"
