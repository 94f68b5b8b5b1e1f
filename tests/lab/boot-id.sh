#!/usr/bin/env bash
# The lab's stand-in for a node's kernel boot id: $GNTLAB_BASE/vc/NODE/boot_id,
# rewritten by reboot-node.sh ("down" while the node is down, a new UUID when
# it "boots").  Prints it; exits 1 while the node is down.  A node that was
# never "rebooted" gets its first boot id on the first read.
#   boot-id.sh NODE      (GNTLAB_BASE as up.sh)
set -euo pipefail
node=${1:?usage: boot-id.sh NODE}
BASE=${GNTLAB_BASE:-/tmp/htools-lab}
root=$BASE/vc/$node
[[ $node =~ ^node[0-9]+$ && -x $root/cmd ]] || { echo "no such lab node: $node" >&2; exit 1; }
file=$root/boot_id
if [[ ! -e $file ]]; then
  tmp=$(mktemp "$file.XXXXXX")
  cat /proc/sys/kernel/random/uuid > "$tmp"
  ln "$tmp" "$file" 2>/dev/null || true     # the first reader wins
  rm -f "$tmp"
fi
id=$(cat "$file")
[[ $id != down ]] || { echo "$node is down" >&2; exit 1; }
echo "$id"
