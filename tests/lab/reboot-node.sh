#!/usr/bin/env bash
# "Reboot" one node of the lab: stop every Ganeti daemon of that virtual node,
# wait, start them again, and wait until its node daemon answers.  Before it
# goes down, the master's view of the node (drained flag, primary instances)
# is logged, so tests can check what a reboot found.
#   reboot-node.sh NODE [DOWN_SECONDS|never]   (root; GNTLAB_NS / GNTLAB_BASE as up.sh)
# Appends "<epoch ms> start NODE drained=<Y|N> primaries=<n>" and
# "<epoch ms> end NODE" to $GNTLAB_BASE/reboots.log.  The node's stand-in boot
# id (vc/NODE/boot_id, see boot-id.sh) reads "down" while the daemons are
# stopped and gets a new UUID before they start again.  "never": the node
# stays down (its daemons stopped) - a node that does not come back.
set -euo pipefail
node=${1:?usage: reboot-node.sh NODE [DOWN_SECONDS]}
down=${2:-2}
NS=${GNTLAB_NS:-htools-lab}
BASE=${GNTLAB_BASE:-/tmp/htools-lab}
root=$BASE/vc/$node
[[ $node =~ ^node[0-9]+$ && -x $root/cmd ]] || { echo "no such lab node: $node" >&2; exit 1; }
on() { ip netns exec "$NS" "$1/cmd" "$2"; }

master=$(cat "$BASE/vc/node1/var/lib/ganeti/ssconf_master_node" 2>/dev/null || echo node1)
view=$(on "$BASE/vc/$master" "gnt-node list --no-headers --separator=' ' -o drained,pinst_cnt $node")
read -r drained primaries <<<"$view"
echo "$(date +%s%3N) start $node drained=$drained primaries=$primaries" >> "$BASE/reboots.log"
echo down > "$root/boot_id.new" && mv "$root/boot_id.new" "$root/boot_id"
on "$root" "/usr/lib/ganeti/daemon-util stop-all" >/dev/null 2>&1 || true
[[ $down != never ]] || exit 0
sleep "$down"
cat /proc/sys/kernel/random/uuid > "$root/boot_id.new" && mv "$root/boot_id.new" "$root/boot_id"
on "$root" "/usr/lib/ganeti/daemon-util start-all" >/dev/null 2>&1
for _ in $(seq 1 150); do
  on "$root" "/usr/lib/ganeti/daemon-util check ganeti-noded" >/dev/null 2>&1 && break
  sleep 0.2
done
on "$root" "/usr/lib/ganeti/daemon-util check ganeti-noded" >/dev/null 2>&1 \
  || { echo "$node: the node daemon did not come back" >&2; exit 1; }
echo "$(date +%s%3N) end $node" >> "$BASE/reboots.log"
