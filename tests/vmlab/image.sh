#!/usr/bin/env bash
# Build, or find in the cache, the vm lab's node image: Debian 12 with
# Ganeti 3.0.2, DRBD, LVM and sshd, as a raw ext4 root filesystem plus the
# kernel and initrd to boot it with (QEMU boots the kernel directly, so the
# image needs no partition table and no bootloader).
#
# The cache entry is keyed by what goes into the image (image/packages,
# image/rootfs/, this script): a second lab on the same machine skips the
# build.  The entry holds nothing particular to one lab (no keys, no
# addresses); up.sh hands those to each VM on a seed disk.
#
# Usage: image.sh            prints the cache entry's directory on stdout
# Env:   VMLAB_CACHE (/var/cache/htools-vmlab)
set -Eeuo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${VMLAB_CACHE:-/var/cache/htools-vmlab}
SUITE=bookworm               # Ganeti 3.0.2, DRBD 8.4 in the kernel
ROOT_SIZE=4G                 # sparse; the node's overlay holds its writes

say() { echo "image.sh: $*" >&2; }
die() { say "$*"; exit 1; }

cache_key() {
  # file names and contents, in a stable order
  (cd "$HERE" && find image.sh image -type f -print0 | sort -z \
     | xargs -0 sha256sum) | sha256sum | cut -c1-16
}

# The Debian mirror this machine's apt already uses for $SUITE: never a name
# written into the project.
debian_mirror() {
  apt-cache policy 2>/dev/null \
    | awk -v s=" $SUITE/main amd64 Packages" 'index($0, s) {print $2; exit}'
}

packages() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$HERE/image/packages"; }
newest() { printf '%s\n' "$@" | sort -V | tail -n 1; }

# apt inside the chroot: no daemon may start there, and the mirror's name
# must resolve as it does on the host.
chroot_install() {
  local root=$1
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
  local list
  mapfile -t list < <(packages)
  cp /etc/hosts /etc/resolv.conf "$root/etc/"
  mount -t proc proc "$root/proc"
  chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends "${list[@]}"
  chroot "$root" apt-get clean
  umount "$root/proc"
  rm -f "$root/usr/sbin/policy-rc.d" "$root/etc/resolv.conf"
  : >"$root/etc/hosts"              # the boot unit writes the lab's own
}

# What makes the tree a lab node rather than a plain Debian system.
customise() {
  local root=$1
  cp -r "$HERE/image/rootfs/." "$root/"
  chmod 755 "$root/usr/local/sbin/vmlab-node"
  chroot "$root" systemctl enable -q vmlab-node.service
  # a getty on the serial console would hang up the console log's writers;
  # nobody logs in on the others, and the timers only cost emulated CPU time
  chroot "$root" systemctl mask -q serial-getty@ttyS0.service getty.target \
    apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer \
    e2scrub_all.timer e2scrub_reap.service fstrim.timer
  echo ". /etc/default/ganeti-vmlab" >>"$root/etc/default/ganeti"
  # Under emulation on a busy host a node daemon can take more than Ganeti's
  # 5 s to accept an RPC connection and finish the TLS handshake, which fails
  # whole jobs ("SSL connection timeout"); the lab's Ganeti waits a minute.
  local constants=/usr/share/ganeti/3.0/ganeti/_constants.py
  sed -i 's/^RPC_CONNECT_TIMEOUT = 5$/RPC_CONNECT_TIMEOUT = 60/' "$root$constants"
  grep -q '^RPC_CONNECT_TIMEOUT = 60$' "$root$constants" \
    || die "could not raise Ganeti's RPC connect timeout"
  chroot "$root" python3 -m py_compile "$constants"     # no recompiling at every import
  mkdir -p "$root/srv/ganeti/file-storage" "$root/srv/ganeti/shared-file-storage"
  echo "/dev/vda / ext4 defaults,noatime 0 1" >"$root/etc/fstab"
  rm -f "$root"/etc/ssh/ssh_host_*           # per lab, from the seed disk
  : >"$root/etc/machine-id"                  # each VM gets its own at boot
  echo "root:*" | chroot "$root" chpasswd -e # no password login at all
}

build() {
  local work=$1 mirror
  mirror=$(debian_mirror)
  [[ -n $mirror ]] || die "apt has no $SUITE/main source configured (apt-cache policy)"
  say "debootstrap $SUITE (minbase) from $mirror"
  # --include cannot resolve virtual packages: the rest comes from apt-get
  debootstrap --variant=minbase --include=systemd-sysv,udev,iproute2,kmod,procps \
    "$SUITE" "$work/root" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -n 20 "$work/debootstrap.log" >&2; return 1; }
  say "apt-get install $(packages | tr '\n' ' ')"
  chroot_install "$work/root" >"$work/apt.log" 2>&1 \
    || { tail -n 20 "$work/apt.log" >&2; return 1; }
  customise "$work/root"
  cp "$(newest "$work"/root/boot/vmlinuz-*)" "$work/vmlinuz"
  cp "$(newest "$work"/root/boot/initrd.img-*)" "$work/initrd.img"
  packages >"$work/packages"
  chroot "$work/root" dpkg-query -W >"$work/versions"
  # the root filesystem straight from the directory: no loop device needed
  truncate -s "$ROOT_SIZE" "$work/base.raw"
  mkfs.ext4 -q -L vmlab-root -d "$work/root" "$work/base.raw" >&2
  rm -rf --one-file-system "$work/root"
}

main() {
  local key entry work
  key=$(cache_key)
  entry=$CACHE/$SUITE-$key
  mkdir -p "$CACHE"
  if [[ -f $entry/ready ]]; then echo "$entry"; return 0; fi
  # one build at a time per cache; a waiting lab then finds the entry ready
  exec 9>"$CACHE/.lock"
  flock 9
  if [[ -f $entry/ready ]]; then echo "$entry"; return 0; fi
  work=$(mktemp -d "$CACHE/build.XXXXXX")
  # whatever happens, no mount and no half-built tree stays behind
  trap 'umount "$work/root/proc" 2>/dev/null; rm -rf --one-file-system "$work"' EXIT
  build "$work"
  touch "$work/ready"
  rm -rf "$entry"
  mv "$work" "$entry"
  trap - EXIT
  say "image $entry built"
  echo "$entry"
}

[[ $(id -u) == 0 ]] || die "must run as root (debootstrap, chroot)"
main
