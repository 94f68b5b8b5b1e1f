#!/usr/bin/env bash
# The version matrix (`make sanity-matrix`): for each ansible-core release
# line given, in a venv of its own (.cache/matrix/RELEASE/venv, made with
# requirements.txt and that release, reused while they do not change):
#   * ansible-test sanity of that release (hacking/sanity.sh), without the
#     tests in SANITY_MATRIX_SKIP: the style linters, whose results depend on
#     the linter release ansible-test pins rather than on ansible-core, and
#     the changelog lint (antsibull-changelog on the same fragments); `make
#     sanity` runs them all on the default release;
#   * the README's example, playbooks/balance.yml (check mode), to see the
#     modules run on that release, not only pass its sanity tests.
#   * with SANITY_MATRIX_MODULE_TESTS=1, the module tests (tests/module: the
#     modules, the role's check mode and the playbooks run through that
#     release's ansible and ansible-playbook), with pytest added to its venv.
# Every release is tested even when one fails; the exit status is non-zero
# if any failed.
#
#   hacking/sanity_matrix.sh RELEASE...        e.g. 2.16 2.17 2.18
#   SANITY_MATRIX_SKIP="pylint pep8 changelog" (the default; "" runs every test)
set -uo pipefail

if [ "$#" -eq 0 ]; then
    echo "usage: $0 RELEASE... (ansible-core release lines, e.g. 2.16 2.17)" >&2
    exit 2
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python=${PYTHON:-python3}
read -r -a skip_tests <<<"${SANITY_MATRIX_SKIP-pylint pep8 changelog}"
skip_args=()
for test in "${skip_tests[@]}"; do skip_args+=(--skip-test "$test"); done
# ansible-test keeps its test venvs under ~/.ansible/test: each release gets
# a HOME of its own, so that releases (and `make sanity`) never share one
# while they run side by side.  The pip cache is shared.
export PIP_CACHE_DIR=${PIP_CACHE_DIR:-$HOME/.cache/pip}
export PIP_DISABLE_PIP_VERSION_CHECK=1
export ANSIBLE_COLLECTIONS_PATH=${ANSIBLE_COLLECTIONS_PATH:-$root/.cache/collections}

# A venv with requirements.txt and ansible-core RELEASE.*, remade when either
# changes.
make_venv() {  # RELEASE DIR
    local want have=""
    want="ansible-core==$1.* $(sha256sum "$root/requirements.txt" | cut -d' ' -f1)"
    [ -f "$2/.stamp" ] && have=$(cat "$2/.stamp")
    [ "$have" = "$want" ] && [ -x "$2/bin/python" ] && return 0
    rm -rf "$2"
    "$python" -m venv "$2" \
        && "$2/bin/python" -m pip install -q -r "$root/requirements.txt" "ansible-core==$1.*" \
        && echo "$want" >"$2/.stamp"
}

# The example must run and print its plan (check mode changes nothing).
smoke() {  # VENV
    local out
    out=$(cd "$root" && "$1/bin/ansible-playbook" playbooks/balance.yml 2>&1)
    local rc=$?
    printf '%s\n' "$out" | tail -n 12
    [ "$rc" = 0 ] && grep -q 'Jobset 1 (' <<<"$out" && grep -q 'failed=0' <<<"$out"
}

# tests/module on that release (pytest beside it in its venv); in the Debian
# 13 root, Debian 13's htools 3.1 are the oracles (HTOOLS_HBAL, HAIL).
module_tests() {  # VENV
    "$1/bin/python" -m pip install -q pytest pytest-xdist \
        && (cd "$root" && "$1/bin/python" -m pytest tests/module -n 2 -p no:cacheprovider -q)
}

# ansible-core 2.20 and later need Python 3.12 or newer.  On an older host
# Python (Debian 12's 3.11) those releases run in a Debian 13 root
# (hacking/debian13_root.sh, Python 3.13): this script again, inside it, on
# a copy of the files git knows (its .cache, with the venvs, is kept).
needs_newer_python() {  # RELEASE
    [ "$(printf '%s\n' "$1" 2.20 | sort -V | head -n 1)" = 2.20 ] \
        && ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 12))'
}

in_debian13() {  # RELEASE
    local top copy rc
    top=$("$root/hacking/debian13_root.sh") || return 1
    copy=$top/src/ansible_collections/ganeti/htools
    mkdir -p "$copy"
    find "$copy" -mindepth 1 -maxdepth 1 ! -name .cache -exec rm -rf {} +
    git -C "$root" ls-files -z --cached --others --exclude-standard \
        | while IFS= read -r -d '' f; do
              if [ -e "$root/$f" ] || [ -L "$root/$f" ]; then printf '%s\0' "$f"; fi
          done \
        | tar -C "$root" --null -T - -cf - | tar -C "$copy" -xf -
    mountpoint -q "$top/proc" || mount -t proc proc "$top/proc"
    chroot "$top" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
        SANITY_MATRIX_SKIP="${skip_tests[*]}" SANITY_MATRIX_MODULE_TESTS="${SANITY_MATRIX_MODULE_TESTS:-}" \
        HTOOLS_HBAL=/usr/lib/ganeti/3.1/usr/bin/hbal HAIL=/usr/lib/ganeti/3.1/usr/lib/ganeti/iallocators/hail \
        ANSIBLE_COLLECTIONS_PATH=/src \
        /src/ansible_collections/ganeti/htools/hacking/sanity_matrix.sh "$1"
    rc=$?
    umount "$top/proc" || true
    return $rc
}

failed=()
for release in "$@"; do
    if needs_newer_python "$release"; then
        echo "== sanity-matrix: ansible-core $release needs Python 3.12+: in a Debian 13 root"
        in_debian13 "$release" || failed+=("$release (Debian 13 root)")
        continue
    fi
    dir=$root/.cache/matrix/$release
    start=$(date +%s)
    echo "== sanity-matrix: ansible-core $release"
    if ! make_venv "$release" "$dir/venv"; then
        echo "== sanity-matrix: ansible-core $release: cannot install it here" >&2
        failed+=("$release (install)")
        continue
    fi
    "$dir/venv/bin/python" -c 'import ansible.release as r, sys; print("ansible-core", r.__version__, "on Python", sys.version.split()[0])'
    mkdir -p "$dir/home"
    if ! HOME=$dir/home "$root/hacking/sanity.sh" "$dir/venv" "$dir/ansible-test" "${skip_args[@]}"; then
        failed+=("$release (sanity)")
    fi
    if ! smoke "$dir/venv"; then
        failed+=("$release (playbooks/balance.yml)")
    fi
    if [ "${SANITY_MATRIX_MODULE_TESTS:-}" = 1 ] && ! module_tests "$dir/venv"; then
        failed+=("$release (tests/module)")
    fi
    echo "== sanity-matrix: ansible-core $release done in $(( $(date +%s) - start ))s"
done

if [ "${#failed[@]}" -gt 0 ]; then
    echo "== sanity-matrix: FAILED on ansible-core ${failed[*]}" >&2
    exit 1
fi
echo "== sanity-matrix: passed on ansible-core $*"
