#!/usr/bin/env bash
# The execution environment built for real (`make ee`, root): ansible-builder
# with Debian's podman (installed if missing) turns execution-environment.yml
# into an image, and the README's example (playbooks/balance.yml, check mode)
# runs inside it with no network.  No container registry is reachable from
# here, so two things differ from an operator's build, and only these:
#   * the base image is the Debian 13 root of hacking/debian13_root.sh
#     (Python 3.13, with Debian's python3-pip added) imported into podman,
#     instead of ee-minimal or awx-ee;
#   * the collection comes from this tree's tarball (make build), not from
#     Galaxy.
# Everything else - ansible-core (2.21, the example definition's range),
# ansible-runner, the collection's Python requirements found by introspection -
# comes from PyPI through ansible-builder's own stages, as in any build.
#
#   hacking/ee_build.sh        # prints the image name at the end
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$root/.cache/ee
base=localhost/ganeti-htools-ee-base:debian13
image=localhost/ganeti-htools-ee:test
bin=${VENV:-$root/.venv}/bin

if [ "$(id -u)" != 0 ]; then
    echo "ee_build.sh: needs root (podman, the Debian 13 root)" >&2
    exit 1
fi
command -v podman >/dev/null || apt-get install -y -q podman >/dev/null
mkdir -p "$work"

# the base image: the Debian 13 root without the trees the version matrix keeps in it
if ! podman image exists "$base"; then
    top=$("$root/hacking/debian13_root.sh")
    tar -C "$top" --exclude=./src --exclude=./proc --exclude=./tmp --exclude=./var/cache/apt/archives \
        --exclude='./.htools-*' -cf - . | podman import - "$base" >/dev/null
fi

# the collection's tarball, and the example definition pointed at it and at the base
rm -f "$root"/dist/ganeti-htools-*.tar.gz
make -C "$root" --no-print-directory build >/dev/null
tarball=$(ls "$root"/dist/ganeti-htools-*.tar.gz)
"$bin/python" - "$root/execution-environment.yml" "$work/execution-environment.yml" "$base" "$tarball" <<'EOF'
import os
import sys

import yaml

source, target, base, tarball = sys.argv[1:]
with open(source, encoding='utf-8') as handle:
    definition = yaml.safe_load(handle)
definition['images']['base_image']['name'] = base
name = os.path.basename(tarball)
definition['dependencies']['galaxy'] = {
    'collections': [{'name': 'collections/' + name, 'type': 'file'}]}
definition['additional_build_files'] = [{'src': tarball, 'dest': 'collections'}]
# a Debian base: apt-get, whose cache ansible-builder must not "clean all"
definition.setdefault('options', {})['package_manager_path'] = '/usr/bin/apt-get'
definition.setdefault('build_arg_defaults', {})['PKGMGR_PRESERVE_CACHE'] = 'always'
# ee-minimal's Python gets pip from ensurepip, which Debian disables for its
# system Python: pip comes from Debian's package, and the builder's pip step
# only checks it is there
definition.setdefault('additional_build_steps', {})['prepend_base'] = [
    'RUN apt-get update -q && apt-get install -y -q --no-install-recommends python3-pip',
    'RUN printf \'#!/bin/sh\\nexec "$1" -m pip --version\\n\' >/output/scripts/pip_install']
with open(target, 'w', encoding='utf-8') as handle:
    yaml.safe_dump(definition, handle, sort_keys=False)
EOF

# Where the machine's cgroups are a v1/v2 hybrid and raising rlimits is not
# allowed (this one), crun refuses to start containers: runc, with limits
# below the machine's, runs them.
run_opts=(--runtime=runc --ulimit=nofile=1024:1024 --ulimit=nproc=4096:4096)
command -v runc >/dev/null || apt-get install -y -q runc >/dev/null

start=$(date +%s)
"$bin/ansible-builder" build -f "$work/execution-environment.yml" -c "$work/context" -t "$image" \
    --container-runtime podman --extra-build-cli-args="--network=host ${run_opts[*]}" -v 2 \
    >"$work/build.log" 2>&1 \
    || { tail -n 60 "$work/build.log" >&2; exit 1; }
echo "ee_build.sh: built $image in $(( $(date +%s) - start ))s" >&2

# what is inside, and the example run in it with no network at all
podman run "${run_opts[@]}" --rm --network=none "$image" ansible --version | head -n 2
podman run "${run_opts[@]}" --rm --network=none "$image" ansible-galaxy collection list ganeti.htools 2>/dev/null \
    | grep ganeti.htools
out=$(podman run "${run_opts[@]}" --rm --network=none -v "$root/playbooks:/runner/playbooks:ro" -w /runner "$image" \
          ansible-playbook playbooks/balance.yml 2>&1) || { printf '%s\n' "$out" | tail -n 40 >&2; exit 1; }
printf '%s\n' "$out" | tail -n 4
grep -q 'Jobset 1 (' <<<"$out" && grep -q 'failed=0' <<<"$out"
echo "$image"
