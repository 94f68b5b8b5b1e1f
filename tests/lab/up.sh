#!/usr/bin/env bash
# The integration-test lab of ganeti.htools: a real Ganeti 3.0.2 cluster
# (Debian packages, fake hypervisor) on this one machine, reachable only
# through https://127.0.0.1:$GNTLAB_RAPI_PORT.  GNTLAB_GANETI=3.1 runs
# Ganeti 3.1 instead, beside the host's 3.0 (see "Ganeti version" below).
#
# How it is built
#  * Each Ganeti node is a "virtual cluster" node (Ganeti's own vcluster mode,
#    tools/vcluster-setup): a private root $GNTLAB_BASE/vc/nodeN with its own
#    /etc/ganeti, /var/lib/ganeti, /var/run/ganeti, /var/log/ganeti and its
#    own IP address.
#  * All node addresses, the cluster IP and an sshd (needed by gnt-node add)
#    live in ONE network namespace, $GNTLAB_NS.  That namespace is isolated:
#    it has no interface shared with the host and no default route (checked
#    below), so nothing the cluster does can leave it.
#  * The host reaches RAPI only through socat relays, each a pair joined by a
#    unix socket: 127.0.0.1:$GNTLAB_RAPI_PORT (host) -> $GNTLAB_BASE/rapi.sock
#    -> cluster IP:5080 (inside the namespace).  A second one, on the next
#    port, is for the tests' own checks (see relay.sh).
#  * /etc/hosts and /etc/ssh inside the namespace come from /etc/netns/$NS,
#    which `ip netns exec` bind-mounts over /etc; the host's own files are
#    never touched.
#  * Ganeti version: the host's /etc/ganeti/lib and share symlinks pick the
#    version every Ganeti command and daemon runs (3.0).  With
#    GNTLAB_GANETI=3.1, /etc/netns/$NS/ganeti holds the same symlinks to
#    the 3.1 trees (hacking/ganeti31.sh puts them beside 3.0's), and `ip
#    netns exec` bind-mounts it over /etc/ganeti: every process of the lab
#    (they all enter the namespace that way, sshd included) runs 3.1, while
#    the host and the other labs keep 3.0.
#  * RAPI serves a certificate signed by a throw-away test CA
#    ($GNTLAB_BASE/ca.pem), valid for IP:127.0.0.1 and DNS:localhost, so
#    clients can verify TLS properly.
#
# Usage:  up.sh [NODES]            (default 3; 1..20)
# Env:    GNTLAB_NS (htools-lab)  GNTLAB_BASE (/tmp/htools-lab)
#         GNTLAB_RAPI_PORT (5090; the tests' helper relay uses the next port)
#         GNTLAB_PREFIX (198.51.100; used inside the namespace only)
#         GNTLAB_RAPI_USER / GNTLAB_RAPI_PASS        (write access)
#         GNTLAB_RAPI_RO_USER / GNTLAB_RAPI_RO_PASS  (read-only)
#         GNTLAB_SEED (0)   running sharedfile instances to create, all on node1
#         GNTLAB_NODE_MEM (8192)  memory of every node in MiB (the node daemons
#                 see a fixed /proc/meminfo), or "host" (the host's, drifting)
#         GNTLAB_GANETI (3.0)  Ganeti version: 3.0 (the host's) or 3.1
#         GNTLAB_STORAGE_SIZE (64g)  size of every storage directory (a tmpfs:
#                 the disk the nodes report; sparse disk files take nothing)
#         GNTLAB_KEEP_FAILED=1   keep a half-built lab for debugging
# Writes: $GNTLAB_BASE/lab.env (connection facts, shell syntax), ca.pem, gnt
# Undo:   down.sh  (same environment)
set -Eeuo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
NODES=${1:-${GNTLAB_NODES:-3}}
NS=${GNTLAB_NS:-htools-lab}
BASE=${GNTLAB_BASE:-/tmp/htools-lab}
PREFIX=${GNTLAB_PREFIX:-198.51.100}
RAPI_PORT=${GNTLAB_RAPI_PORT:-5090}
HELPER_PORT=$((RAPI_PORT + 1))    # the tests' own relay (see relay.sh)
RAPI_USER=${GNTLAB_RAPI_USER:-htools-admin}
RAPI_PASS=${GNTLAB_RAPI_PASS:-htools-lab-Pw-7731}
RO_USER=${GNTLAB_RAPI_RO_USER:-htools-reader}
RO_PASS=${GNTLAB_RAPI_RO_PASS:-htools-lab-Ro-2208}
SEED=${GNTLAB_SEED:-0}
NODE_MEM=${GNTLAB_NODE_MEM:-8192}  # MiB per node, or "host" for the host's drifting meminfo
GANETI=${GNTLAB_GANETI:-3.0}
STORAGE_SIZE=${GNTLAB_STORAGE_SIZE:-64g}
NAMES=${GNTLAB_INSTANCES:-20}     # instanceN names listed in the namespace's /etc/hosts
CLUSTER=cluster                   # vcluster-setup's naming convention
CLUSTER_IP=$PREFIX.1
HELPER_SRC=$PREFIX.254            # source address of the helper relay, inside the namespace
VC=$BASE/vc
ETCNS=/etc/netns/$NS
export GNTLAB_BASE=$BASE GNTLAB_RAPI_PORT=$RAPI_PORT
START_MS=$(date +%s%3N)

say() {
  local ms=$(( $(date +%s%3N) - START_MS ))
  printf '[lab %3d.%ds] %s\n' $((ms / 1000)) $((ms % 1000 / 100)) "$*" >&2
}
die() { echo "up.sh: $*" >&2; exit 1; }
ip_of() { echo "$PREFIX.$(( $1 + 9 ))"; }      # nodeN -> .N+9 (vcluster-setup's rule)
in_ns() { ip netns exec "$NS" "$@"; }
on_node() { local n=$1; shift; in_ns "$VC/node$n/cmd" "$*"; }
ns_exists() { ip netns list | awk '{print $1}' | grep -qxF "$NS"; }

# ------------------------------------------------------------------ checks
if ! [[ $NODES =~ ^[0-9]+$ ]] || (( NODES < 1 || NODES > 20 )); then die "NODES must be 1..20"; fi
if ! [[ $SEED =~ ^[0-9]+$ ]] || (( SEED > NAMES )); then die "GNTLAB_SEED must be 0..$NAMES"; fi
[[ $NODE_MEM == host ]] || { [[ $NODE_MEM =~ ^[0-9]+$ ]] && (( NODE_MEM >= 2048 )); } \
  || die "GNTLAB_NODE_MEM must be a size in MiB >= 2048, or host"
[[ $GANETI == 3.0 || $GANETI == 3.1 ]] || die "GNTLAB_GANETI must be 3.0 or 3.1"
[[ $(id -u) == 0 ]] || die "must run as root"
if ! command -v ip >/dev/null || ! ip netns list >/dev/null 2>&1; then die "'ip netns' is not usable here"; fi
[[ $PREFIX =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "GNTLAB_PREFIX must look like 198.51.100"
[[ $PREFIX != 192.0.2 ]] || die "192.0.2.0/24 is a real network on these machines; pick another prefix"
ns_exists && die "network namespace $NS already exists: the lab is up (or half up); run down.sh first"
for port in "$RAPI_PORT" "$HELPER_PORT"; do
  if ss -Hltn "sport = :$port" | grep -q .; then
    die "port $port is in use on this host (set GNTLAB_RAPI_PORT; the lab uses it and the next one)"
  fi
done
[[ -e $BASE ]] && die "$BASE exists without a namespace: stale lab state; run down.sh first"

# From here on, whatever makes up.sh fail (a failed command, die, a signal)
# removes what was built, unless GNTLAB_KEEP_FAILED=1.
FAILED_AT=
on_exit() {
  local rc=$?
  (( rc == 0 )) && return 0
  trap - ERR
  echo "up.sh: failed (exit $rc)${FAILED_AT:+ at line $FAILED_AT}" >&2
  for f in "$VC"/node1/var/log/ganeti/{commands,master-daemon,rapi-daemon,node-daemon}.log; do
    if [[ -f $f ]]; then echo "--- tail $f" >&2; tail -n 15 "$f" >&2; fi
  done
  if [[ ${GNTLAB_KEEP_FAILED:-0} == 1 ]]; then
    echo "up.sh: half-built lab kept (GNTLAB_KEEP_FAILED=1); remove it with down.sh" >&2
  else
    echo "up.sh: removing the half-built lab" >&2
    "$HERE/down.sh" >&2 || true
  fi
  return "$rc"
}
trap 'FAILED_AT=${FAILED_AT:-$LINENO}' ERR
trap on_exit EXIT

# ------------------------------------------------------------------ 0. packages
# Try the install first (fast with a warm cache); refresh the lists only if it fails.
need=()
command -v gnt-cluster >/dev/null || need+=(ganeti)
[[ -d /usr/share/ganeti/os/noop ]] || need+=(ganeti-os-noop)
[[ -x /usr/lib/ganeti/3.0/usr/bin/hbal ]] || need+=(ganeti-htools-3.0)
command -v socat >/dev/null || need+=(socat)
command -v curl >/dev/null || need+=(curl)
command -v openssl >/dev/null || need+=(openssl)
[[ -x /usr/sbin/sshd ]] || need+=(openssh-server)
command -v ssh >/dev/null || need+=(openssh-client)
command -v ss >/dev/null || need+=(iproute2)
command -v unshare >/dev/null || need+=(util-linux)
if (( ${#need[@]} )); then
  say "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # another lab may be installing at the same time: wait for dpkg's lock
  apt=(apt-get -o DPkg::Lock::Timeout=600)
  "${apt[@]}" install -y -q --no-install-recommends "${need[@]}" >/dev/null \
    || { "${apt[@]}" update -q >/dev/null \
         && "${apt[@]}" install -y -q --no-install-recommends "${need[@]}" >/dev/null; }
fi
# 3.1 beside the host's 3.0 (bookworm-backports, unpacked; not an apt install)
[[ $GANETI == 3.0 ]] || "$HERE/../../hacking/ganeti31.sh"
say "packages present (Ganeti $GANETI)"

# ------------------------------------------------------------------ 1. isolated namespace
# A veth pair needs a peer, and both ends stay INSIDE the namespace: eth0
# holds all addresses, eth0-peer only provides carrier.  Never move an end to
# the host and never add a default route.
mkdir -p "$BASE"
ip netns add "$NS"
in_ns ip link set lo up
in_ns ip link add eth0 type veth peer name eth0-peer
in_ns ip link set eth0-peer up
in_ns ip addr add "$(ip_of 1)/24" dev eth0
for ((n = 2; n <= NODES; n++)); do in_ns ip addr add "$(ip_of "$n")/32" dev eth0; done
in_ns ip addr add "$HELPER_SRC/32" dev eth0
in_ns ip link set eth0 up
in_ns ip link add br0 type bridge      # instances' NICs: mode=bridged, link=br0
in_ns ip link set br0 up
# the safety assertions
[[ -z $(in_ns ip route show default) ]] || die "a default route exists inside $NS"
[[ -z $(in_ns ip -6 route show default) ]] || die "an IPv6 default route exists inside $NS"
links=$(in_ns ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | sort | tr '\n' ' ')
[[ $links == "br0 eth0 eth0-peer lo " ]] || die "unexpected links inside $NS: $links"
in_ns ip -o link show | grep -q 'link-netns\|link-netnsid' && die "a link of $NS leads out of it"
say "namespace $NS: isolated (links: $links; no default route)"

# ------------------------------------------------------------------ 2. /etc for the namespace
mkdir -p "$ETCNS/ssh"
{
  echo "127.0.0.1 localhost"
  echo "::1 localhost ip6-localhost ip6-loopback"
  echo "$CLUSTER_IP $CLUSTER"
  for ((n = 1; n <= NODES; n++)); do echo "$(ip_of "$n") node$n"; done
  for ((i = 1; i <= NAMES; i++)); do echo "$PREFIX.$((99 + i)) instance$i"; done
} >"$ETCNS/hosts"
S=$ETCNS/ssh
[[ -f /etc/ssh/moduli ]] && cp /etc/ssh/moduli "$S/"
[[ -f /etc/ssh/ssh_config ]] && cp /etc/ssh/ssh_config "$S/"
ssh-keygen -q -t ed25519 -N '' -f "$S/ssh_host_ed25519_key"
ssh-keygen -q -t rsa -b 2048 -N '' -f "$S/ssh_host_rsa_key"
ssh-keygen -q -t ed25519 -N '' -f "$S/lab_id_ed25519" -C "htools-lab"
install -m 600 "$S/lab_id_ed25519.pub" "$S/lab_authorized_keys"
cat >"$S/sshd_config" <<EOF
# sshd of the htools lab: only inside network namespace $NS
Port 22
ListenAddress 0.0.0.0
HostKey /etc/ssh/ssh_host_ed25519_key
HostKey /etc/ssh/ssh_host_rsa_key
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
AuthorizedKeysFile /etc/ssh/lab_authorized_keys
PidFile /run/sshd-$NS.pid
Subsystem sftp /usr/lib/openssh/sftp-server
EOF
printf '\nHost *\n    IdentityFile /etc/ssh/lab_id_ed25519\n' >>"$S/ssh_config"
if [[ $GANETI != 3.0 ]]; then
  # the namespace's /etc/ganeti (ip netns exec mounts it): the version's trees
  mkdir "$ETCNS/ganeti"
  ln -s "/usr/lib/ganeti/$GANETI" "$ETCNS/ganeti/lib"
  ln -s "/usr/share/ganeti/$GANETI" "$ETCNS/ganeti/share"
  cp -a /etc/ganeti/kvm-ifup-os /etc/ganeti/xen-ifup-os "$ETCNS/ganeti/" 2>/dev/null || true
  v=$(in_ns /usr/sbin/gnt-cluster --version | sed -n 's/.*) //p')
  [[ $v == "$GANETI".* ]] || die "the namespace runs Ganeti '$v', not $GANETI"
fi
# The nodes report the free space of the storage directories as their free
# disk: on the host's file system it moves with everything else the host
# writes (in CI: the vm lab's disks, the version matrix's venvs), so scores
# and hbal's answers would drift between two reads.  A tmpfs of a fixed size
# changes only with what the lab itself writes (sparse disk files: nothing).
# Mounted before sshd starts: the node daemons' mount namespaces descend
# from its, and see no later mount of the host's.
mkdir -p "$VC" "$BASE/file-storage"
lab_storage() {  # DIR
  mkdir -p "$1"
  mount -t tmpfs -o "size=$STORAGE_SIZE,mode=755" "htools-lab-storage" "$1"
}
lab_storage "$BASE/shared-storage"
for ((n = 1; n <= NODES; n++)); do lab_storage "$VC/node$n/file-storage"; done
mkdir -p /run/sshd
in_ns /usr/sbin/sshd -t
in_ns /usr/sbin/sshd
for _ in $(seq 1 50); do [[ -s /run/sshd-$NS.pid ]] && break; sleep 0.1; done
[[ -s /run/sshd-$NS.pid ]] || die "sshd did not start inside $NS"
say "sshd inside $NS (pid $(cat "/run/sshd-$NS.pid"))"

# ------------------------------------------------------------------ 3. virtual node roots
# The fake hypervisor reports the host's /proc/meminfo (MemFree+Buffers+
# Cached, minus its instances), which drifts by megabytes every second; a
# fixed meminfo for the node daemons makes node memory, scores and hbal's
# choices reproducible.
if [[ $NODE_MEM != host ]]; then
  {
    echo "MemTotal:       $(( NODE_MEM * 1024 )) kB"
    echo "MemFree:        $(( (NODE_MEM - 1024) * 1024 )) kB"
    echo "MemAvailable:   $(( (NODE_MEM - 1024) * 1024 )) kB"
    echo "Buffers:               0 kB"
    echo "Cached:                0 kB"
    echo "Active:          $(( 512 * 1024 )) kB"
  } >"$BASE/meminfo"
  chmod 444 "$BASE/meminfo"
fi
# inside the namespace: its /etc/ganeti picks the version's vcluster-setup
in_ns /usr/lib/ganeti/tools/vcluster-setup -E -N -c "$NODES" -i 0 -p "$PREFIX" "$VC" \
  >"$BASE/vcluster-setup.log" 2>&1
for ((n = 1; n <= NODES; n++)); do
  d=$VC/node$n
  # mond would bind every address (collision between virtual nodes): give it
  # the node's own; rapi runs on the master only, on all addresses.
  sed -i -e "s/^MOND_ARGS=''/MOND_ARGS='-b $(ip_of "$n")'/" \
         -e "s/^RAPI_ARGS=.*/RAPI_ARGS='-b 0.0.0.0'/" "$d/etc/default/ganeti"
  printf '%s\n' "$BASE/file-storage" "$BASE/shared-storage" >"$d/etc/ganeti/file-storage-paths"
  # 'file' disks are node-local, but the file storage dir is one path for the
  # whole cluster: every daemon of this node runs in a private mount
  # namespace (see node-mounts) where $BASE/file-storage is the node's own
  # directory.  daemon-util sources this file and re-executes itself once
  # through node-mounts.
  mkdir -p "$d/file-storage"
  cat >>"$d/etc/default/ganeti" <<EOF

# htools-lab: private mounts for this node's daemons (file storage, meminfo)
if [[ -z \${GNTLAB_PRIVATE_MNT:-} && \${0##*/} == daemon-util ]]; then
  export GNTLAB_PRIVATE_MNT=node$n
  exec unshare --mount --propagation private -- "$BASE/node-mounts" "$d" "\$0" "\$@"
fi
EOF
done
cat >"$BASE/node-mounts" <<EOF
#!/bin/bash
# node-mounts NODEDIR CMD...: run CMD with NODEDIR's private view of the lab
# (called by daemon-util inside a fresh private mount namespace)
set -e
mount --bind "\$1/file-storage" "$BASE/file-storage"
if [[ -f "$BASE/meminfo" ]]; then mount --bind "$BASE/meminfo" /proc/meminfo; fi
shift
exec "\$@"
EOF
chmod 755 "$BASE/node-mounts"
cat >"$BASE/gnt" <<EOF
#!/bin/bash
# Run a Ganeti command on the lab's current master:  $BASE/gnt gnt-node list
m=\$(cat "$VC/node1/var/lib/ganeti/ssconf_master_node" 2>/dev/null || echo node1)
exec ip netns exec "$NS" "$VC/\$m/cmd" "\$*"
EOF
chmod +x "$BASE/gnt"
say "virtual node roots under $VC"

# ------------------------------------------------------------------ 4. cluster
on_node 1 gnt-cluster init --no-etc-hosts --no-ssh-init \
  --master-netdev=eth0 \
  --enabled-hypervisors=fake \
  --enabled-disk-templates=sharedfile,file,diskless \
  --file-storage-dir="$BASE/file-storage" \
  --shared-file-storage-dir="$BASE/shared-storage" \
  --nic-parameters=mode=bridged,link=br0 \
  --ipolicy-bounds-specs=min:disk-size=0,cpu-count=1,disk-count=0,memory-size=1,nic-count=0,spindle-use=0/max:disk-size=1048576,cpu-count=8,disk-count=16,memory-size=32768,nic-count=8,spindle-use=12 \
  "$CLUSTER" >"$BASE/cluster-init.log" 2>&1
v=$(on_node 1 gnt-cluster version | sed -n 's/^Software version: //p')
[[ $v == "$GANETI".* ]] || die "the cluster runs Ganeti '$v', not $GANETI"
say "cluster initialised, master node1, Ganeti $v"
for ((n = 2; n <= NODES; n++)); do
  on_node 1 gnt-node add --no-ssh-key-check "node$n" >>"$BASE/cluster-init.log" 2>&1
  say "node$n added"
done
# node-daemon-setup started only noded and mond on the new nodes
for ((n = 2; n <= NODES; n++)); do
  on_node "$n" /usr/lib/ganeti/daemon-util start-all >/dev/null 2>&1 &
done
wait

# ------------------------------------------------------------------ 5. RAPI users
U=$VC/node1/var/lib/ganeti/rapi/users
{
  echo "# htools lab RAPI users"
  echo "$RAPI_USER $RAPI_PASS write"
  echo "$RO_USER $RO_PASS read"
} >"$U"
chown gnt-rapi:gnt-masterd "$U"
chmod 640 "$U"
(( NODES > 1 )) && on_node 1 gnt-cluster redist-conf >/dev/null

# ------------------------------------------------------------------ 6. RAPI certificate from a test CA
P=$BASE/pki
mkdir -p "$P"
openssl req -x509 -newkey rsa:2048 -nodes -days 30 -sha256 \
  -subj "/CN=htools-lab test CA $NS" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -keyout "$P/ca.key" -out "$BASE/ca.pem" 2>/dev/null
openssl req -new -newkey rsa:2048 -nodes -subj "/CN=localhost" \
  -keyout "$P/rapi.key" -out "$P/rapi.csr" 2>/dev/null
cat >"$P/rapi.ext" <<EOF
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,DNS:localhost,IP:$CLUSTER_IP,DNS:$CLUSTER
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
EOF
openssl x509 -req -in "$P/rapi.csr" -CA "$BASE/ca.pem" -CAkey "$P/ca.key" -CAcreateserial \
  -days 30 -sha256 -extfile "$P/rapi.ext" -out "$P/rapi.crt" 2>/dev/null
cat "$P/rapi.key" "$P/rapi.crt" >"$P/rapi.pem"
openssl verify -CAfile "$BASE/ca.pem" "$P/rapi.crt" >/dev/null
# Ganeti's own way (it validates the key/certificate pair and copies it to
# every node; on 3.0.2 it does not restart anything for this option).
on_node 1 gnt-cluster renew-crypto --rapi-certificate="$P/rapi.pem" --force \
  >>"$BASE/cluster-init.log" 2>&1
how="gnt-cluster renew-crypto"
for ((n = 1; n <= NODES; n++)); do
  cmp -s "$P/rapi.pem" "$VC/node$n/var/lib/ganeti/rapi.pem" && continue
  # 3.0.2 ignores --rapi-certificate unless another secret is renewed too:
  # install the file as renew-crypto would, with the original's owner/mode.
  f=$VC/node$n/var/lib/ganeti/rapi.pem
  install -m "$(stat -c %a "$f")" -o "$(stat -c %U "$f")" -g "$(stat -c %G "$f")" "$P/rapi.pem" "$f"
  how="copying it to every node (renew-crypto left it unchanged)"
done
say "RAPI certificate installed by $how"
# the RAPI daemon reads its certificate at start only
on_node 1 /usr/lib/ganeti/daemon-util stop ganeti-rapi >/dev/null 2>&1 || true
on_node 1 /usr/lib/ganeti/daemon-util start ganeti-rapi
for _ in $(seq 1 100); do
  in_ns curl -sf --cacert "$BASE/ca.pem" "https://$CLUSTER_IP:5080/version" >/dev/null && break
  sleep 0.2
done
in_ns curl -sSf --cacert "$BASE/ca.pem" "https://$CLUSTER_IP:5080/2/info" >/dev/null
say "RAPI on https://$CLUSTER_IP:5080 inside $NS serves the test CA's certificate"

# ------------------------------------------------------------------ 7. relays to 127.0.0.1
# main: what clients use.  helper: the tests' own checks; its inner end
# connects from another source address ($HELPER_SRC), so the RAPI log
# (access lines carry the peer address) tells the two apart.
in_ns setsid socat "UNIX-LISTEN:$BASE/rapi.sock,fork,unlink-early,mode=600" \
  "TCP:$CLUSTER_IP:5080" </dev/null >/dev/null 2>&1 &
echo $! >"$BASE/relay-ns.pid"
in_ns setsid socat "UNIX-LISTEN:$BASE/rapi-helper.sock,fork,unlink-early,mode=600" \
  "TCP:$CLUSTER_IP:5080,bind=$HELPER_SRC" </dev/null >/dev/null 2>&1 &
echo $! >"$BASE/relay-helper-ns.pid"
for _ in $(seq 1 100); do [[ -S $BASE/rapi.sock && -S $BASE/rapi-helper.sock ]] && break; sleep 0.05; done
"$HERE/relay.sh" start main >/dev/null
"$HERE/relay.sh" start helper >/dev/null
for port in "$RAPI_PORT" "$HELPER_PORT"; do
  for _ in $(seq 1 100); do
    curl -sf --cacert "$BASE/ca.pem" "https://127.0.0.1:$port/version" >/dev/null && break
    sleep 0.1
  done
  # TLS verified against the test CA for the name 127.0.0.1 (SAN), write user
  curl -sSf --cacert "$BASE/ca.pem" -u "$RAPI_USER:$RAPI_PASS" \
    "https://127.0.0.1:$port/2/info" >/dev/null
  ss -Hltn "sport = :$port" | awk '{print $4}' | grep -qvx "127.0.0.1:$port" \
    && die "a relay listens on more than 127.0.0.1:$port"
done
say "RAPI relayed to https://127.0.0.1:$RAPI_PORT (tests' helper: $HELPER_PORT), TLS verified with $BASE/ca.pem"

# ------------------------------------------------------------------ 8. seed an unbalanced cluster
# sharedfile, not diskless: hbal 3.0.2 never moves diskless instances.
if (( SEED > 0 )); then
  ids=()
  for ((i = 1; i <= SEED; i++)); do
    ids+=("$(on_node 1 gnt-instance add --submit -t sharedfile --disk 0:size=1G -o noop \
      --no-ip-check --no-name-check -B memory=512M -n node1 "instance$i" 2>&1 \
      | awk '/JobID:/ {print $2}')")
  done
  for j in "${ids[@]}"; do on_node 1 gnt-job wait "$j" >/dev/null; done
  bad=$(on_node 1 gnt-job list --no-headers -o id,status "${ids[@]}" | awk '$2 != "success"')
  [[ -z $bad ]] || die "seeding failed: $bad"
  say "seeded $SEED running sharedfile instances on node1"
fi

# ------------------------------------------------------------------ 9. facts for the tests
umask 077
cat >"$BASE/lab.env" <<EOF
GNTLAB_NS=$NS
GNTLAB_BASE=$BASE
GNTLAB_NODES=$NODES
GNTLAB_SEED=$SEED
GNTLAB_NODE_MEM=$NODE_MEM
GNTLAB_GANETI=$GANETI
GNTLAB_RAPI_PORT=$RAPI_PORT
GNTLAB_RAPI_URL=https://127.0.0.1:$RAPI_PORT
GNTLAB_HELPER_URL=https://127.0.0.1:$HELPER_PORT
GNTLAB_HELPER_SOURCE=$HELPER_SRC
GNTLAB_CLUSTER_IP=$CLUSTER_IP
GNTLAB_RAPI_USER=$RAPI_USER
GNTLAB_RAPI_PASS=$RAPI_PASS
GNTLAB_RAPI_RO_USER=$RO_USER
GNTLAB_RAPI_RO_PASS=$RO_PASS
GNTLAB_CA=$BASE/ca.pem
EOF
trap - ERR EXIT
say "lab up"
cat <<EOF
htools lab up: Ganeti $GANETI, $NODES node(s), seed $SEED, namespace $NS (isolated)
  RAPI : https://127.0.0.1:$RAPI_PORT  CA $BASE/ca.pem  users $RAPI_USER (write), $RO_USER (read)
  CLI  : $BASE/gnt gnt-instance list
  hbal : /usr/lib/ganeti/$GANETI/usr/bin/hbal -m https://127.0.0.1:$RAPI_PORT
  facts: $BASE/lab.env     tear down: $HERE/down.sh
EOF
