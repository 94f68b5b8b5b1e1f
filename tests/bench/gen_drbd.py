# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark clusters: N DRBD nodes, 20 instances per node, 20 % of nodes new and empty."""

import argparse
import random


def generate(nodes, seed=1, per_node=20):
    rnd = random.Random(seed)
    new = max(1, nodes // 5)
    old = nodes - new
    names = ["node%03d.example.com" % i for i in range(nodes)]
    mem_sizes = [512, 1024, 2048, 4096]
    dsk_sizes = [10240, 20480, 51200, 102400]
    insts = []
    used_mem = [0] * nodes
    used_dsk = [0] * nodes
    for k in range(nodes * per_node):
        p = rnd.randrange(old)
        s = rnd.randrange(old - 1)
        s = s + 1 if s >= p else s
        mem, dsk = rnd.choice(mem_sizes), rnd.choice(dsk_sizes)
        vcpus = rnd.choice((1, 1, 2, 4))
        used_mem[p] += mem
        used_dsk[p] += dsk
        used_dsk[s] += dsk
        insts.append("inst%05d.example.com|%d|%d|%d|running|Y|%s|%s|drbd||1"
                     % (k, mem, dsk, vcpus, names[p], names[s]))
    t_mem, t_dsk = 262144, 8 * 1024 * 1024
    node_lines = []
    for i in range(nodes):
        node_lines.append("%s|%d|1024|%d|%d|%d|64|%s|uuid-1|8"
                          % (names[i], t_mem, t_mem - 1024 - used_mem[i], t_dsk,
                             t_dsk - used_dsk[i], "M" if i == 0 else "N"))
    return ("default|uuid-1|preferred||\n\n" + "\n".join(node_lines) + "\n\n"
            + "\n".join(insts) + "\n\n\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("nodes", type=int)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    with open(args.out, "w", encoding="utf-8") as handle:
        handle.write(generate(args.nodes, args.seed))


if __name__ == "__main__":
    main()
