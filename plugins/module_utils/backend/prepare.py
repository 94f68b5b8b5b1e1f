# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""From parsed data to a ready model: merge, derive, mark nodes, pick a group.

This is hbal's loading pipeline, shared by every backend: utilisation (-U),
merge (tags, selections), MonD CPU loads (--mond), missing memory/disk, node
status (-O, --min-disk, --max-cpu), then the node group (-G).  Planners run it
through prepare_model, naming the options they take from their parameters.
"""

from __future__ import annotations

import math

from ..errors import DataError, HtoolsError, LookupFailure
from .dynutil import load_util_file
from ..model.vocabulary import NO_NODE

# The data-source options every module takes (hbal's -U, --ignore-dynu, -G,
# -O, --exclusion-tags), by their module option names.
SOURCE_OPTIONS = ("util_file", "group", "offline_nodes", "exclusion_tags", "ignore_dynu")
# Options the loaders apply while reading the data (hbal --static-kvm-node-memory).
LOAD_OPTIONS = ("static_kvm_node_memory",)
# The MonD options (hbal --mond, --mond-data, --mond-xen, --exit-on-missing-mond-data);
# mond_port and mond_timeout only say how the nodes are asked (live/mond.py).
MOND_OPTION_NAMES = ("mond", "mond_data", "mond_xen", "exit_on_missing_mond_data")
# Every option prepare_model can apply (prepare's keywords, by their module option
# names); a planner names the ones it takes (-G is select_group's, after).
PREPARE_OPTIONS = ("util_file", "ignore_dynu", "exclusion_tags", "select_instances",
                   "exclude_instances", "offline_nodes", "min_disk", "max_cpu") + MOND_OPTION_NAMES

TAG_IEXTAGS = "htools:iextags:"
TAG_DESIRED_LOCATION = "htools:desiredlocation:"
TAG_NLOCATION = "htools:nlocation:"
TAG_MIGRATION = "htools:migration:"
TAG_ALLOW_MIGRATION = "htools:allowmigration:"


def _tag_values(cluster_tags, prefix):
    return [tag[len(prefix):] for tag in cluster_tags if tag.startswith(prefix)]


def lookup_name(name, candidates):
    """Ganeti's partial name lookup: exact, else a unique `name.` prefix match."""
    if name in candidates:
        return name
    matches = [c for c in candidates if c.startswith(name + ".")]
    return matches[0] if len(matches) == 1 else None


def common_suffix(names):
    """The longest `.`-starting suffix of the first name shared by every name."""
    if not names:
        return ""
    first = names[0]
    best = ""
    for pos, char in enumerate(first):
        if char != ".":
            continue
        suffix = first[pos:]
        if len(suffix) > len(best) and all(n.endswith(suffix) for n in names):
            best = suffix
    return best


def apply_utilisation(data, util, ignore_dynu=False, source="<util>"):
    """Set instance utilisation; unknown instance names are an error."""
    if ignore_dynu:
        for inst in data.instances:
            inst.util = (0.0, 0.0, 0.0, 0.0)
        return
    if not util:
        return
    by_name = {inst.name: inst for inst in data.instances}
    unknown = sorted(name for name in util if name not in by_name)
    if unknown:
        raise DataError("unknown instance(s) in utilisation data: %s" % ", ".join(unknown),
                        source=source, expected="names of instances in the cluster data")
    for name, values in util.items():
        by_name[name].util = values


def merge_data(data, exclusion_tags=(), select_instances=(), exclude_instances=()):
    """hbal's mergeData minus utilisation (applied before, see apply_utilisation)."""
    instances = data.instances
    nodes = data.nodes
    excl_prefixes = [t + ":" for t in exclusion_tags] + \
        [x for x in _tag_values(data.cluster_tags, TAG_IEXTAGS) if x]
    dsrd_prefixes = [x for x in _tag_values(data.cluster_tags, TAG_DESIRED_LOCATION) if x]

    names = [inst.name for inst in instances]
    selected = _resolve_instances(select_instances, names)
    excluded = _resolve_instances(exclude_instances, names)

    data.suffix = common_suffix([n.name for n in nodes] + names)
    cut = len(data.suffix)

    for inst in instances:
        if inst.name in excluded or (selected and inst.name not in selected):
            inst.movable = False
        inst.dsrd_loc_tags = frozenset(t for t in inst.tags
                                       if any(t.startswith(p) for p in dsrd_prefixes))
        inst.excl_tags = [t for t in inst.tags if any(t.startswith(p) for p in excl_prefixes)]
        inst.alias = inst.name[:-cut] if cut else inst.name

    loc_prefixes = [x + ":" for x in _tag_values(data.cluster_tags, TAG_NLOCATION)]
    for node in nodes:
        node.location_tags = frozenset(t for t in node.tags
                                       if any(t.startswith(p) for p in loc_prefixes))

    for inst in instances:
        if inst.snode != NO_NODE:
            inst.location_score = len(nodes[inst.pnode].location_tags &
                                      nodes[inst.snode].location_tags)
        else:
            inst.location_score = 0

    placed = [[] for _unused in nodes]
    for inst in instances:
        placed[inst.pnode].append((inst, True))
        if inst.snode != NO_NODE:
            placed[inst.snode].append((inst, False))
    for node, its_instances in zip(nodes, placed):
        node.load_placed(its_instances)

    for node in nodes:
        node.build_peers(instances)
        node.alias = node.name[:-cut] if cut else node.name
        policy = data.groups[node.group].ipolicy
        node.set_policy(policy.vcpu_ratio, policy.spindle_ratio)

    for inst in instances:
        snode = inst.snode if inst.snode != NO_NODE else inst.pnode
        if nodes[inst.pnode].group != nodes[snode].group:
            inst.movable = False

    mig_prefixes = [x + ":" for x in _tag_values(data.cluster_tags, TAG_MIGRATION)]
    allow_rules = []
    for rule in _tag_values(data.cluster_tags, TAG_ALLOW_MIGRATION):
        source_tag, sep, target_tag = rule.partition("::")
        if sep and "::" not in target_tag:
            allow_rules.append((source_tag, target_tag))
    for node in nodes:
        node.mig_tags = frozenset(t for t in node.tags
                                  if any(t.startswith(p) for p in mig_prefixes))
        node.rmig_tags = node.mig_tags | frozenset(a for a, b in allow_rules if b in node.mig_tags)


def _resolve_instances(names, candidates):
    if not names:
        return set()
    resolved, unknown = set(), []
    for name in names:
        found = lookup_name(name, candidates)
        if found is None:
            unknown.append(name)
        else:
            resolved.add(found)
    if unknown:
        raise LookupFailure("unknown instance(s): %s" % ", ".join(unknown))
    return resolved


def use_mond(data, mond_data=None, xen=False, exit_on_missing=False):
    """CPU loads from MonD reports: the `mond_data` file's, else those read
    from the nodes with the data.  Returns the warnings."""
    # only here: the runs without MonD never load its reader
    from .mond import apply_mond, load_mond_file  # pylint: disable=import-outside-toplevel
    if mond_data:
        reports, failures, source = load_mond_file(mond_data), {}, mond_data
    elif data.mond_reports is not None:
        (reports, failures), source = data.mond_reports, "MonD"
    else:
        raise HtoolsError("mond is true but there are no MonD reports: give mond_data (a "
                          "file of saved reports), or read the cluster with a module, "
                          "which asks every node's MonD")
    warnings = apply_mond(data, reports, xen, exit_on_missing, source=source)
    # why the silent nodes said nothing (live queries only)
    return warnings + ["MonD of %s: %s" % item for item in failures.items()] \
        if warnings else warnings


def update_missing(data):
    """Derive i_mem/x_mem/p_mem and collect hbal's inconsistency warnings."""
    warnings = []
    for node in data.nodes:
        x_mem, missing_dsk = node.update_missing(data.instances)
        if x_mem > 512 or missing_dsk > 1024:
            warnings.append("node %s is missing %d MB ram and %d GB disk"
                            % (node.name, x_mem, missing_dsk // 1024))
    data.warnings = list(data.load_warnings) + list(reversed(warnings))


def set_node_status(data, offline_nodes=(), min_disk=0.0, max_cpu=None):
    """Apply -O, --min-disk and --max-cpu to every node, before the group is chosen."""
    names = [n.name for n in data.nodes]
    resolved, unknown = [], []
    for name in offline_nodes:
        found = lookup_name(name, names)
        (unknown if found is None else resolved).append(name if found is None else found)
    if unknown:
        raise LookupFailure("unknown node name(s) given as offline: %s (not in %s)"
                            % (", ".join(unknown), data.source or "the cluster data"))
    offline = set(resolved)
    for node in data.nodes:
        if node.name in offline:
            node.offline = True
        node.m_dsk = min_disk
        node.lo_dsk = math.floor(min_disk * node.t_dsk) if math.isfinite(min_disk * node.t_dsk) \
            else 0
        if max_cpu is not None:
            node.hi_cpu = math.floor(max_cpu * node.t_cpu) if math.isfinite(max_cpu * node.t_cpu) \
                else 0
            node.vcpu_ratio = max_cpu


class GroupSelection:
    """The selected group: its nodes and instances, keeping cluster indices."""

    def __init__(self, group, nodes, instances):
        self.group = group
        self.nodes = nodes            # list of Node, ascending index
        self.instances = instances    # list of Instance, ascending index


ALL_GROUPS = "all"


def all_group_names(data, group):
    """The names of the groups with nodes, in order, when `group` asks for every
    group (`all`, unless a group is named so); else None."""
    if group != ALL_GROUPS or data.group_by_name_or_uuid(ALL_GROUPS) is not None:
        return None
    return sorted({data.groups[n.group].name for n in data.nodes})


def select_group(data, group=None):
    """Choose the node group like hbal -G: the given one (name or UUID), else the
    only group that has nodes."""
    populated = sorted({n.group for n in data.nodes})
    names = [data.groups[g].name for g in populated]
    if group is None:
        if len(populated) > 1:
            raise LookupFailure("%s has several node groups with nodes (%s); choose one with "
                                "the group option" % (data.source or "the cluster",
                                                      ", ".join(names)))
        if not populated:
            raise DataError("the cluster data has no nodes", source=data.source)
        chosen = data.groups[populated[0]]
    else:
        chosen = data.group_by_name_or_uuid(group)
        if chosen is None:
            raise LookupFailure("node group %r not found in %s; groups are: %s"
                                % (group, data.source or "the cluster data",
                                   ", ".join(g.name for g in data.groups)))
    nodes = [n for n in data.nodes if n.group == chosen.idx]
    instances = [i for i in data.instances if data.nodes[i.pnode].group == chosen.idx]
    return GroupSelection(chosen, nodes, instances)


def prepare(data, util=None, ignore_dynu=False, exclusion_tags=(), select_instances=(),
            exclude_instances=(), offline_nodes=(), min_disk=0.0, max_cpu=None,
            util_source="<util>", util_file=None, before_node_status=None, mond=False,
            mond_data=None, mond_xen=False, exit_on_missing_mond_data=False):
    """Run the whole pipeline on freshly loaded data (any backend), in hbal's order.

    `util_file` is read here unless `util` is given already parsed.
    With `mond`, the MonD CPU loads replace the CPU utilisation (not with
    `ignore_dynu`, which hbal says ignores every dynamic load); `mond_data`
    is only read with `mond`, as in hbal.
    `before_node_status(data)` runs once the data is complete but before -O,
    --min-disk and --max-cpu apply: the state hbal -S saves as `.original`.
    """
    if util is None and util_file and not ignore_dynu:
        util, util_source = load_util_file(util_file), util_file
    apply_utilisation(data, util, ignore_dynu, source=util_source)
    if mond_data and not mond:
        raise HtoolsError("mond_data is only read with mond: true (as hbal reads "
                          "--mond-data only with --mond=yes)")
    merge_data(data, exclusion_tags, select_instances, exclude_instances)
    mond_warnings = use_mond(data, mond_data, mond_xen, exit_on_missing_mond_data) \
        if mond and not ignore_dynu else []
    update_missing(data)
    data.warnings.extend(mond_warnings)
    if before_node_status is not None:
        before_node_status(data)
    set_node_status(data, offline_nodes, min_disk, max_cpu)
    return data


def prepare_model(data, params=None, options=PREPARE_OPTIONS, before_node_status=None):
    """prepare() with the `options` a planner takes from its parameters `params`.

    An option absent from `params` or None there keeps prepare()'s default;
    options not named are ignored (an IAllocator request takes none:
    `prepare_model(data)`).  `before_node_status` is as in prepare().
    """
    unknown = set(options) - set(PREPARE_OPTIONS)
    if unknown:
        raise ValueError("not options of prepare: %s" % ", ".join(sorted(unknown)))
    params = params or {}
    given = {name: params[name] for name in options if params.get(name) is not None}
    return prepare(data, before_node_status=before_node_status, **given)
