# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Symmetric benchmark clusters: one hardware model, one instance flavour.

N identical DRBD nodes, 80 % of them loaded with 25 identical instances each
(as primary; every loaded node is also secondary of 25), 20 % new and empty.
Instances carry one service tag each (`service:sN`) and the cluster tag
`htools:iextags:service` makes those exclusion tags; nodes sit in racks of
`rack_size` (node tag `rack:rNN`, cluster tag `htools:nlocation:rack`), and
secondaries are close to their primaries, so that many pairs share a rack.

Such clusters make huge numbers of exactly tied candidate moves: the search
must not re-score each of them.  The seed rotates the services and the
secondary offsets and shuffles the instance order, nothing else.
"""

import argparse
import random

T_MEM, N_MEM, T_DSK, T_CPU, SPINDLES = 262144, 1024, 8 * 1024 * 1024, 64, 8
MEM, DSK, VCPUS = 4096, 51200, 2


def generate(nodes, seed=1, per_node=25, services=5, rack_size=10):
    rnd = random.Random(seed)
    new = max(1, nodes // 5)
    old = nodes - new
    width = max(3, len(str(nodes - 1)))
    names = ["node%0*d.example.com" % (width, i) for i in range(nodes)]
    offsets = [1 + (k + seed) % min(5, max(1, old - 1)) for k in range(per_node)]
    shift = rnd.randrange(services)
    insts = []
    used = [0] * nodes
    for p in range(old):
        for k in range(per_node):
            s = (p + offsets[k]) % old
            if s == p:
                s = (p + 1) % old
            insts.append((p, s, (k + shift) % services))
            used[p] += 1
    order = list(range(len(insts)))
    if seed:
        rnd.shuffle(order)
    lines = []
    dsk_used = [0] * nodes
    for k in order:
        p, s, svc = insts[k]
        dsk_used[p] += DSK
        dsk_used[s] += DSK
        lines.append("inst%06d.example.com|%d|%d|%d|running|Y|%s|%s|drbd|service:s%d|1"
                     % (k, MEM, DSK, VCPUS, names[p], names[s], svc))
    node_lines = []
    for i in range(nodes):
        node_lines.append("%s|%d|%d|%d|%d|%d|%d|%s|uuid-1|%d|rack:r%03d"
                          % (names[i], T_MEM, N_MEM, T_MEM - N_MEM - used[i] * MEM, T_DSK,
                             T_DSK - dsk_used[i], T_CPU, "M" if i == 0 else "N", SPINDLES,
                             i // rack_size))
    return ("default|uuid-1|preferred||\n\n" + "\n".join(node_lines) + "\n\n"
            + "\n".join(lines) + "\n\nhtools:iextags:service\nhtools:nlocation:rack\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("nodes", type=int)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-node", type=int, default=25)
    parser.add_argument("--services", type=int, default=5)
    parser.add_argument("--rack-size", type=int, default=10)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    with open(args.out, "w", encoding="utf-8") as handle:
        handle.write(generate(args.nodes, args.seed, args.per_node, args.services,
                              args.rack_size))


if __name__ == "__main__":
    main()
