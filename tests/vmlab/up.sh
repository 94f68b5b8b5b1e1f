#!/usr/bin/env bash
# The vm lab of ganeti.htools: a real Ganeti 3.0.2 cluster whose nodes are
# QEMU virtual machines running Debian's own kernel, so DRBD, LVM and node
# reboots are real (the namespace lab in tests/lab/ has none of them).
#
# How it is built
#  * One node image (image.sh, cached under $VMLAB_CACHE), a copy-on-write
#    overlay and a sparse 24 GiB volume-group disk per node, and one small
#    read-only seed disk that gives the nodes this lab's names, addresses and
#    SSH keys.  QEMU emulates the CPU (TCG): these machines have no usable KVM.
#  * All VMs sit in ONE network namespace, $VMLAB_NS: a bridge, a tap per VM,
#    nothing else.  It has no link to the host and no default route (checked
#    below), so nothing the cluster does can leave it.  198.51.100.0/24 is
#    used inside it only.
#  * The host reaches the lab only through socat relays on 127.0.0.1, each a
#    pair joined by a unix socket under $VMLAB_BASE/run: RAPI on
#    $VMLAB_RAPI_PORT (to the cluster IP, so it follows the master) and each
#    node's sshd on $VMLAB_RAPI_PORT+N.
#  * RAPI serves a certificate from a throw-away CA ($VMLAB_BASE/ca.pem) valid
#    for IP:127.0.0.1, so clients verify TLS with ca_path.
#
# Usage:  up.sh [NODES]                    (default 3; 1..9)
# Env:    VMLAB_BASE (/tmp/htools-vmlab)   work directory, removed by down.sh
#         VMLAB_NS (htools-vmlab)          network namespace
#         VMLAB_RAPI_PORT (5190)           RAPI on 127.0.0.1; node N's SSH on +N
#         VMLAB_DRBD (0)     DRBD instances, primary node1, secondary node2
#         VMLAB_DRBD_SPREAD (0)  1: the DRBD instances spread instead, so that every
#                                node holds primaries and secondaries (see spread_pair)
#         VMLAB_PLAIN (0)    plain instances on node1
#         VMLAB_CACHE (/var/cache/htools-vmlab)  node image cache (image.sh)
#         VMLAB_VM_MEM (1024)    MiB of RAM per VM
#         VMLAB_NODE_MEM (4096)  MiB of node memory Ganeti sees (fake hypervisor)
#         VMLAB_DISK (64)        MiB per instance disk
#         VMLAB_SSH_REUSE (0)    1: one reused SSH connection per node
#         VMLAB_BOOT_TIMEOUT (600)  seconds a node may take to answer SSH (a busy host)
#         VMLAB_KEEP_FAILED=1    keep a half-built lab for debugging
# Writes: $VMLAB_BASE/lab.env (connection facts), ca.pem, gnt, ssh,
#         inventory.ini, id_ed25519, known_hosts, console/nodeN.log, timings
# Undo:   down.sh (same environment)
set -Eeuo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
NODES=${1:-${VMLAB_NODES:-3}}
NS=${VMLAB_NS:-htools-vmlab}
BASE=${VMLAB_BASE:-/tmp/htools-vmlab}
RAPI_PORT=${VMLAB_RAPI_PORT:-5190}
DRBD=${VMLAB_DRBD:-0}
DRBD_SPREAD=${VMLAB_DRBD_SPREAD:-0}
PLAIN=${VMLAB_PLAIN:-0}
VM_MEM=${VMLAB_VM_MEM:-1024}
NODE_MEM=${VMLAB_NODE_MEM:-4096}
DISK=${VMLAB_DISK:-64}
BOOT_TIMEOUT=${VMLAB_BOOT_TIMEOUT:-600}
export VMLAB_CACHE=${VMLAB_CACHE:-/var/cache/htools-vmlab}
RAPI_USER=gnt-admin
RAPI_PASS=gnt-secret
PREFIX=198.51.100                # inside the namespace only
HOST_IP=$PREFIX.1                # the namespace's own address on the bridge
CLUSTER_IP=$PREFIX.10
BRIDGE=vmbr0
RUN=$BASE/run
START_MS=$(date +%s%3N)
PHASE_MS=$START_MS
TIMINGS=()

say() {
  local ms=$(( $(date +%s%3N) - START_MS ))
  printf '[vmlab %4d.%ds] %s\n' $((ms / 1000)) $((ms % 1000 / 100)) "$*" >&2
}
# phase NAME: log the step and remember how long it took since the last one
phase() {
  local now ms
  now=$(date +%s%3N); ms=$((now - PHASE_MS)); PHASE_MS=$now
  TIMINGS+=("$(printf '%s %d.%d' "$1" $((ms / 1000)) $((ms % 1000 / 100)))")
  say "$1 ($((ms / 1000)).$((ms % 1000 / 100))s)"
}
die() { echo "up.sh: $*" >&2; exit 1; }
in_ns() { ip netns exec "$NS" "$@"; }
node_ip() { echo "$PREFIX.$((10 + $1))"; }
ssh_port() { echo $((RAPI_PORT + $1)); }
ns_exists() { ip netns list | awk '{print $1}' | grep -qxF "$NS"; }
port_busy() { ss -Hltn "sport = :$1" | grep -q .; }
# Generous timeouts: under emulation, with a busy host, sshd can take many
# seconds to answer.
SSH_OPTS=(-F none -i "$BASE/id_ed25519" -o IdentitiesOnly=yes -o BatchMode=yes
          -o UserKnownHostsFile="$BASE/known_hosts" -o StrictHostKeyChecking=yes
          -o ConnectTimeout=60 -o ServerAliveInterval=15 -o ServerAliveCountMax=4
          -o LogLevel=ERROR)
# on N CMD...: a shell command on node N, from inside the namespace
on() { local n=$1; shift; in_ns ssh "${SSH_OPTS[@]}" "root@$(node_ip "$n")" "$@"; }

check_settings() {
  [[ $NODES =~ ^[1-9]$ ]] || die "NODES must be 1..9"
  local v
  for v in DRBD DRBD_SPREAD PLAIN VM_MEM NODE_MEM DISK RAPI_PORT BOOT_TIMEOUT; do
    [[ ${!v} =~ ^[0-9]+$ ]] || die "VMLAB_$v must be a number"
  done
  (( DRBD == 0 || NODES >= 2 )) || die "DRBD instances need 2 nodes"
  (( DRBD_SPREAD <= 1 )) || die "VMLAB_DRBD_SPREAD must be 0 or 1"
  (( RAPI_PORT >= 1024 && RAPI_PORT + NODES <= 65535 )) || die "VMLAB_RAPI_PORT out of range"
  [[ $(id -u) == 0 ]] || die "must run as root"
  ip netns list >/dev/null 2>&1 || die "'ip netns' is not usable here"
  [[ -c /dev/net/tun ]] || die "/dev/net/tun is missing (taps for the VMs)"
  ns_exists && die "network namespace $NS exists: the lab is up (or half up); run down.sh first"
  [[ -e $BASE ]] && die "$BASE exists: stale lab state; run down.sh first"
  local n
  for ((n = 0; n <= NODES; n++)); do
    port_busy $((RAPI_PORT + n)) && die "port $((RAPI_PORT + n)) is in use (set VMLAB_RAPI_PORT)"
  done
  return 0
}

# From here on a failure removes what was built (unless VMLAB_KEEP_FAILED=1),
# after showing the end of Ganeti's output and of every console log
# (VMLAB_KEEP_LOGS=DIR keeps them whole, see down.sh).
on_exit() {
  local rc=$? f
  (( rc == 0 )) && return 0
  trap - ERR
  echo "up.sh: failed (exit $rc)${FAILED_AT:+ at line $FAILED_AT}" >&2
  for f in "$BASE/cluster.log" "$BASE"/console/node*.log; do
    [[ -f $f ]] && { echo "--- tail $f" >&2; tail -n 25 "$f" >&2; }
  done
  if [[ ${VMLAB_KEEP_FAILED:-0} == 1 ]]; then
    echo "up.sh: half-built lab kept (VMLAB_KEEP_FAILED=1); remove it with down.sh" >&2
  else
    echo "up.sh: removing the half-built lab" >&2
    "$HERE/down.sh" >&2 || true
  fi
  return "$rc"
}

# ------------------------------------------------------------------ host side
host_packages() {
  local need=()
  command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
  command -v qemu-img >/dev/null || need+=(qemu-utils)
  command -v debootstrap >/dev/null || need+=(debootstrap)
  command -v mkfs.ext4 >/dev/null || need+=(e2fsprogs)
  command -v socat >/dev/null || need+=(socat)
  command -v ssh >/dev/null || need+=(openssh-client)
  command -v openssl >/dev/null || need+=(openssl)
  command -v curl >/dev/null || need+=(curl)
  command -v flock >/dev/null || need+=(util-linux)
  command -v ss >/dev/null || need+=(iproute2)
  (( ${#need[@]} )) || return 0
  say "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # another lab may be installing at the same time: wait for dpkg's lock
  local apt=(apt-get -o DPkg::Lock::Timeout=600)
  "${apt[@]}" install -y -q --no-install-recommends "${need[@]}" >/dev/null \
    || { "${apt[@]}" update -q >/dev/null \
         && "${apt[@]}" install -y -q --no-install-recommends "${need[@]}" >/dev/null; }
}

# Keys of this lab only: one root key (the host's and the nodes' way in) and
# one set of host keys shared by all nodes (Ganeti gives every node the
# master's host keys anyway), so known_hosts can be strict.
make_keys() {
  local seed=$BASE/seed n ports=()
  mkdir -p "$seed/ssh" "$seed/root"
  ssh-keygen -q -t ed25519 -N '' -C "vmlab-$NS" -f "$BASE/id_ed25519"
  cp "$BASE/id_ed25519" "$BASE/id_ed25519.pub" "$seed/root/"
  ssh-keygen -q -t ed25519 -N '' -C "vmlab-$NS" -f "$seed/ssh/ssh_host_ed25519_key"
  # Ganeti reads the master's RSA host key at cluster init
  ssh-keygen -q -t rsa -b 2048 -N '' -C "vmlab-$NS" -f "$seed/ssh/ssh_host_rsa_key"
  for ((n = 1; n <= NODES; n++)); do ports+=("[127.0.0.1]:$(ssh_port "$n")"); done
  local names
  names="$PREFIX.*,$(IFS=,; echo "${ports[*]}")"
  awk -v h="$names" '{print h, $1, $2}' "$seed"/ssh/ssh_host_*_key.pub >"$BASE/known_hosts"
}

# The seed disk: what makes the shared image this lab's nodes.
make_seed() {
  local seed=$BASE/seed n
  {
    echo "127.0.0.1 localhost"
    echo "$CLUSTER_IP cluster"
    for ((n = 1; n <= NODES; n++)); do echo "$(node_ip "$n") node$n"; done
  } >"$seed/hosts"
  printf 'VMLAB_PREFIX=%s\nVMLAB_NODE_MEM=%s\n' "$PREFIX" "$NODE_MEM" >"$seed/lab.conf"
  truncate -s 8M "$BASE/seed.raw"
  mkfs.ext4 -q -L vmlab-seed -d "$seed" "$BASE/seed.raw" >/dev/null
  rm -rf "$seed"
}

make_disks() {
  local n
  for ((n = 1; n <= NODES; n++)); do
    qemu-img create -q -f qcow2 -b "$IMAGE/base.raw" -F raw "$BASE/node$n.qcow2"
    truncate -s 24G "$BASE/vg$n.raw"     # Ganeti wants a volume group >= 20 GiB
  done
}

# ------------------------------------------------------------------ network
make_network() {
  local n links
  ip netns add "$NS"
  in_ns ip link set lo up
  in_ns ip link add "$BRIDGE" type bridge
  in_ns ip addr add "$HOST_IP/24" dev "$BRIDGE"
  in_ns ip link set "$BRIDGE" up
  for ((n = 1; n <= NODES; n++)); do
    in_ns ip tuntap add dev "vmtap$n" mode tap
    in_ns ip link set "vmtap$n" master "$BRIDGE" up
  done
  # the safety assertions: only our own links, no way out
  [[ -z $(in_ns ip route show default) ]] || die "a default route exists inside $NS"
  [[ -z $(in_ns ip -6 route show default) ]] || die "an IPv6 default route exists inside $NS"
  links=$(in_ns ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | sort | tr '\n' ' ')
  local own=(lo "$BRIDGE") want
  for ((n = 1; n <= NODES; n++)); do own+=("vmtap$n"); done
  want=$(printf '%s\n' "${own[@]}" | sort | tr '\n' ' ')
  [[ $links == "$want" ]] || die "unexpected links inside $NS: $links"
  if in_ns ip -d -o link show | grep -q 'link-netns'; then die "a link of $NS leads out of it"; fi
  say "namespace $NS isolated (links: $links; no default route)"
}

# ------------------------------------------------------------------ VMs
# No speculative-execution mitigations inside: they only slow the emulation of
# a throw-away VM.
boot_vm() {
  local n=$1
  in_ns qemu-system-x86_64 -name "vmlab-$NS-node$n" \
    -accel tcg,thread=multi -cpu max -smp 1 -m "$VM_MEM" \
    -nodefaults -display none -vga none \
    -kernel "$IMAGE/vmlinuz" -initrd "$IMAGE/initrd.img" \
    -append "root=/dev/vda rw console=ttyS0 quiet mitigations=off net.ifnames=0 vmlab.node=$n" \
    -drive "file=$BASE/node$n.qcow2,if=virtio,format=qcow2,cache=unsafe" \
    -drive "file=$BASE/vg$n.raw,if=virtio,format=raw,cache=unsafe" \
    -drive "file=$BASE/seed.raw,if=virtio,format=raw,readonly=on" \
    -netdev "tap,id=lan,ifname=vmtap$n,script=no,downscript=no" \
    -device "virtio-net-pci,netdev=lan,mac=52:54:00:c6:33:$((10 + n))" \
    -device virtio-rng-pci \
    -serial "file:$BASE/console/node$n.log" \
    -daemonize -pidfile "$RUN/qemu-node$n.pid"
}

wait_ssh() {
  local n=$1 deadline=$((SECONDS + BOOT_TIMEOUT))
  until on "$n" true 2>/dev/null; do
    (( SECONDS < deadline )) || die "node$n: no SSH after ${BOOT_TIMEOUT}s (see $BASE/console/node$n.log)"
    kill -0 "$(cat "$RUN/qemu-node$n.pid")" 2>/dev/null || die "node$n: qemu exited"
    sleep 3
  done
}

# relay NAME IP PORT HOST_PORT: 127.0.0.1:HOST_PORT on the host -> unix
# socket -> IP:PORT inside the namespace.  Both socats get pidfiles.
relay() {
  local name=$1 ip=$2 port=$3 hport=$4 sock=$RUN/$1.sock
  in_ns setsid socat "UNIX-LISTEN:$sock,fork,unlink-early,mode=600" "TCP:$ip:$port" \
    </dev/null >/dev/null 2>&1 &
  echo $! >"$RUN/relay-$name-ns.pid"
  for _ in $(seq 1 100); do [[ -S $sock ]] && break; sleep 0.05; done
  [[ -S $sock ]] || die "relay $name: no socket $sock"
  setsid socat "TCP-LISTEN:$hport,bind=127.0.0.1,reuseaddr,fork" "UNIX-CONNECT:$sock" \
    </dev/null >/dev/null 2>&1 &
  echo $! >"$RUN/relay-$name-host.pid"
  for _ in $(seq 1 100); do ss -Hltn "src 127.0.0.1 and sport = :$hport" | grep -q . && break; sleep 0.05; done
  ss -Hltn "sport = :$hport" | awk '{print $4}' | grep -qvx "127.0.0.1:$hport" \
    && die "relay $name listens on more than 127.0.0.1:$hport"
  ss -Hltn "src 127.0.0.1 and sport = :$hport" | grep -q . || die "relay $name: not listening on $hport"
}

# ------------------------------------------------------------------ cluster
IPOLICY_BOUNDS=min:cpu-count=1,disk-count=0,disk-size=1,memory-size=1,nic-count=0,spindle-use=0
IPOLICY_BOUNDS+=/max:cpu-count=8,disk-count=8,disk-size=65536,memory-size=65536,nic-count=8,spindle-use=8

init_cluster() {
  # small disks must pass the instance policy; the VMs have one CPU each
  on 1 gnt-cluster init --no-etc-hosts --master-netdev=eth0 \
    --enabled-hypervisors=fake \
    --enabled-disk-templates=drbd,plain,file,sharedfile,diskless \
    --vg-name=xenvg \
    --file-storage-dir=/srv/ganeti/file-storage \
    --shared-file-storage-dir=/srv/ganeti/shared-file-storage \
    --nic-parameters=mode=bridged,link=br0 \
    --ipolicy-bounds-specs="$IPOLICY_BOUNDS" \
    --ipolicy-vcpu-ratio=64 --ipolicy-spindle-ratio=64 \
    cluster >>"$BASE/cluster.log" 2>&1 && return 0
  # On a busy host luxid may not take the post-init job in time ("job 1 failed
  # to start"); that job only runs hooks: the cluster is there, and answers.
  tail -n 3 "$BASE/cluster.log" | grep -q 'failed to start' || return 1
  on 1 gnt-cluster getmaster >>"$BASE/cluster.log" 2>&1 || return 1
  say "gnt-cluster init: the post-init job (hooks only) did not start; the cluster answers"
}

# A job luxid did not take in time ("failed to start", a busy host) never ran:
# the same node is added again.
add_nodes() {
  local n try
  for ((n = 2; n <= NODES; n++)); do
    for try in 1 2 3 4 5; do
      on 1 gnt-node add --no-ssh-key-check "node$n" >>"$BASE/cluster.log" 2>&1 && break
      tail -n 3 "$BASE/cluster.log" | grep -q 'failed to start' || return 1
      on 1 gnt-node list --no-headers -o name | grep -qxF "node$n" && return 1
      (( try < 3 )) || return 1
      say "adding node$n: the job did not start (try $try), adding it again"
      sleep 10
    done
    phase "node$n added"
  done
}

rapi_users() {
  # the file takes the owner of its directory, whatever the package made it
  # shellcheck disable=SC2016  # expanded by the node's shell
  printf '# vm lab\n%s %s write\n' "$RAPI_USER" "$RAPI_PASS" \
    | on 1 'f=/var/lib/ganeti/rapi/users; cat >$f.new &&
            chown --reference=${f%/*} $f.new && chmod 640 $f.new && mv $f.new $f'
  (( NODES == 1 )) || on 1 gnt-cluster redist-conf >>"$BASE/cluster.log"
}

make_certificate() {
  local p=$BASE/pki
  mkdir -p "$p"
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -sha256 -subj "/CN=vmlab test CA $NS" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -keyout "$p/ca.key" -out "$BASE/ca.pem" 2>/dev/null
  openssl req -new -newkey rsa:2048 -nodes -subj "/CN=localhost" \
    -keyout "$p/rapi.key" -out "$p/rapi.csr" 2>/dev/null
  printf '%s\n' "basicConstraints=critical,CA:FALSE" \
    "keyUsage=critical,digitalSignature,keyEncipherment" "extendedKeyUsage=serverAuth" \
    "subjectAltName=IP:127.0.0.1,DNS:localhost,IP:$CLUSTER_IP,DNS:cluster" >"$p/rapi.ext"
  openssl x509 -req -in "$p/rapi.csr" -CA "$BASE/ca.pem" -CAkey "$p/ca.key" -CAcreateserial \
    -days 30 -sha256 -extfile "$p/rapi.ext" -out "$p/rapi.crt" 2>/dev/null
  cat "$p/rapi.key" "$p/rapi.crt" >"$p/rapi.pem"
  openssl verify -CAfile "$BASE/ca.pem" "$p/rapi.crt" >/dev/null
}

# Straight into every node's rapi.pem (keeping the file's owner and mode):
# `gnt-cluster renew-crypto --rapi-certificate` alone leaves the file
# unchanged on 3.0.2 (see tests/lab/up.sh) and restarts every daemon of the
# cluster, minutes under emulation.  Every node, because a master failover
# starts RAPI elsewhere; RAPI reads the file at start only.
install_certificate() {
  local pem=$BASE/pki/rapi.pem n
  for ((n = 1; n <= NODES; n++)); do
    on "$n" 'cat >/var/lib/ganeti/rapi.pem' <"$pem"
  done
  on 1 '/usr/lib/ganeti/daemon-util stop ganeti-rapi; /usr/lib/ganeti/daemon-util start ganeti-rapi'
}

rapi_relay() {
  local url=https://127.0.0.1:$RAPI_PORT
  relay rapi "$CLUSTER_IP" 5080 "$RAPI_PORT"
  # RAPI was just restarted: on a busy host it can take minutes to answer.
  # With credentials: the nodes' RAPI requires authentication for every
  # path, /version too (without them each try was a 401, and every boot
  # waited out the whole BOOT_TIMEOUT, 10 minutes).
  local deadline=$((SECONDS + BOOT_TIMEOUT))
  until curl -sf --cacert "$BASE/ca.pem" -u "$RAPI_USER:$RAPI_PASS" "$url/version" >/dev/null; do
    (( SECONDS < deadline )) || break
    sleep 1
  done
  # TLS verified for the name 127.0.0.1, with the write user
  curl -sSf --cacert "$BASE/ca.pem" -u "$RAPI_USER:$RAPI_PASS" "$url/2/info" >/dev/null
}

# add_instance TEMPLATE NAME NODES.  One at a time: they would wait for the
# same node locks anyway, and under emulation several job processes starting
# at once make luxid give up on them ("Timeout in reading a response").  An
# RPC can time out on a busy host ("SSL connection timeout") before anything
# was created: then the same creation is tried again.
add_instance() {
  local template=$1 name=$2 nodes=$3 try
  for try in 1 2 3 4 5; do
    on 1 gnt-instance add -t "$template" -n "$nodes" --disk "0:size=${DISK}M" -o noop \
      --no-name-check --no-ip-check -B memory=64,vcpus=1 "$name" >>"$BASE/cluster.log" 2>&1 \
      && return 0
    on 1 gnt-instance list --no-headers -o name | grep -qxF "$name" \
      && die "creating $name failed half-way (see $BASE/cluster.log)"
    say "creating $name failed before it started (try $try), trying again"
    sleep $((10 * try))
  done
  die "could not create $name (see $BASE/cluster.log)"
}

add_instances() {
  local template=$1 count=$2 nodes=$3 i
  for ((i = 1; i <= count; i++)); do add_instance "$template" "$template$i" "$nodes"; done
  phase "$count $template instance(s) on $nodes"
}

# spread_pair I: the nodes of the I-th spread DRBD instance (from 0): primaries
# go round the nodes, each with the next node as secondary, then the one
# after it, ...: with 3 nodes and 3 or more instances every node holds
# primaries and secondaries (node1:node2 node2:node3 node3:node1 node1:node3 ...)
spread_pair() {
  local i=$1 p s
  p=$((i % NODES + 1))
  s=$(( (p - 1 + (i / NODES) % (NODES - 1) + 1) % NODES + 1 ))
  echo "node$p:node$s"
}

add_spread_drbd() {
  local i
  for ((i = 1; i <= DRBD; i++)); do add_instance drbd "drbd$i" "$(spread_pair $((i - 1)))"; done
  phase "$DRBD drbd instance(s) spread over the nodes"
}

# ------------------------------------------------------------------ facts
write_facts() {
  local n
  umask 077
  cat >"$BASE/lab.env" <<EOF
VMLAB_NS=$NS
VMLAB_BASE=$BASE
VMLAB_NODES=$NODES
VMLAB_DRBD=$DRBD
VMLAB_DRBD_SPREAD=$DRBD_SPREAD
VMLAB_PLAIN=$PLAIN
VMLAB_DISK=$DISK
VMLAB_NODE_MEM=$NODE_MEM
VMLAB_RAPI_PORT=$RAPI_PORT
VMLAB_RAPI_URL=https://127.0.0.1:$RAPI_PORT
VMLAB_RAPI_USER=$RAPI_USER
VMLAB_RAPI_PASS=$RAPI_PASS
VMLAB_CA=$BASE/ca.pem
VMLAB_CLUSTER_IP=$CLUSTER_IP
VMLAB_INVENTORY=$BASE/inventory.ini
VMLAB_SSH_KEY=$BASE/id_ed25519
VMLAB_KNOWN_HOSTS=$BASE/known_hosts
VMLAB_IMAGE=$IMAGE
EOF
  {
    echo "# the vm lab's nodes, over SSH relayed to 127.0.0.1"
    echo "[vmlab]"
    for ((n = 1; n <= NODES; n++)); do
      echo "node$n ansible_host=127.0.0.1 ansible_port=$(ssh_port "$n")"
    done
    echo
    echo "[vmlab:vars]"
    echo "ansible_user=root"
    echo "ansible_ssh_private_key_file=$BASE/id_ed25519"
    echo "ansible_ssh_common_args='-o UserKnownHostsFile=$BASE/known_hosts -o StrictHostKeyChecking=yes -o IdentitiesOnly=yes'"
    echo "ansible_python_interpreter=/usr/bin/python3"
  } >"$BASE/inventory.ini"
  umask 022
  # $BASE/ssh N CMD... on node N; $BASE/gnt CMD... on the master, which always
  # holds the cluster IP.  One argument is a shell command line as it is;
  # several are quoted word by word.
  local opts
  opts=$(printf '%q ' "${SSH_OPTS[@]}")
  # VMLAB_SSH_REUSE=1 in the caller's environment: one connection per node,
  # reused (ControlMaster): under emulation every SSH handshake costs the node
  # seconds of CPU, and the rolling-reboot sampler connecting every few
  # seconds starved the node daemons on a busy host (their live data null on
  # RAPI; the master's luxid failing job after job: "Getting the lockfile of
  # the client ... Timeout").  Read when the wrapper runs, not when the lab
  # is built, so that `make vmlab-roll` on a lab booted by boot.sh has it.
  # Not the default until the CI tests' reboots have run with it.
  cat >"$BASE/ssh" <<EOF
#!/bin/bash
# Run a command on node N of the vm lab:  $BASE/ssh 2 'cat /proc/drbd'
n=\$1; shift
if (( \$# == 1 )); then cmd=\$1; else cmd=\$(printf '%q ' "\$@"); fi
reuse=()
if [[ \${VMLAB_SSH_REUSE:-0} == 1 ]]; then
  reuse=(-o ControlMaster=auto -o ControlPersist=120 -o ControlPath=$BASE/run/ssh-node\$n)
fi
exec ip netns exec $NS ssh "\${reuse[@]}" $opts root@$PREFIX.\$((10 + n)) "\$cmd"
EOF
  cat >"$BASE/gnt" <<EOF
#!/bin/bash
# Run a command on the vm lab's current master:  $BASE/gnt gnt-instance list
if (( \$# == 1 )); then cmd=\$1; else cmd=\$(printf '%q ' "\$@"); fi
exec ip netns exec $NS ssh $opts root@$CLUSTER_IP "\$cmd"
EOF
  chmod 755 "$BASE/ssh" "$BASE/gnt"
  printf '%s\n' "${TIMINGS[@]}" >"$BASE/timings"
}

main() {
  check_settings
  FAILED_AT=
  trap 'FAILED_AT=${FAILED_AT:-$LINENO}' ERR
  trap on_exit EXIT
  mkdir -p "$RUN" "$BASE/console"
  host_packages
  phase "host packages present"
  IMAGE=$("$HERE/image.sh")
  phase "node image $IMAGE"
  make_keys
  make_seed
  make_disks
  phase "keys, seed disk, overlays and volume-group disks"
  make_network
  local n
  for ((n = 1; n <= NODES; n++)); do boot_vm "$n"; done
  for ((n = 1; n <= NODES; n++)); do relay "ssh-node$n" "$(node_ip "$n")" 22 "$(ssh_port "$n")"; done
  for ((n = 1; n <= NODES; n++)); do wait_ssh "$n"; done
  phase "$NODES VMs booted, SSH answers"
  init_cluster
  phase "cluster initialised, master node1"
  add_nodes
  rapi_users
  make_certificate
  install_certificate
  rapi_relay
  phase "RAPI on https://127.0.0.1:$RAPI_PORT (CA $BASE/ca.pem)"
  if (( DRBD > 0 && DRBD_SPREAD == 1 )); then
    add_spread_drbd
  elif (( DRBD > 0 )); then
    add_instances drbd "$DRBD" node1:node2
  fi
  (( PLAIN == 0 )) || add_instances plain "$PLAIN" node1
  write_facts
  trap - ERR EXIT
  say "lab up in $(( ($(date +%s%3N) - START_MS) / 1000 ))s"
  cat <<EOF
htools vm lab up: $NODES node(s), $DRBD DRBD and $PLAIN plain instance(s), namespace $NS (isolated)
  RAPI : https://127.0.0.1:$RAPI_PORT  CA $BASE/ca.pem  user $RAPI_USER (write)
  CLI  : $BASE/gnt gnt-instance list        node N: $BASE/ssh N CMD
  SSH  : 127.0.0.1:$(ssh_port 1)..$(ssh_port "$NODES") (inventory $BASE/inventory.ini)
  hbal : /usr/lib/ganeti/3.0/usr/bin/hbal -m https://127.0.0.1:$RAPI_PORT
  facts: $BASE/lab.env   consoles: $BASE/console/   tear down: $HERE/down.sh
timings (s):
$(printf '  %s\n' "${TIMINGS[@]}")
EOF
}

main
