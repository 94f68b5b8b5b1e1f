# -*- coding: utf-8 -*-

# Copyright: (c) 2025, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """Options shared by every module that loads a Ganeti cluster model."""

    # Use as: extends_documentation_fragment: [ganeti.htools.data_source]; modules
    # that model the cluster as hbal does also take ganeti.htools.data_source.model
    DOCUMENTATION = r'''
options:
  data_file:
    description:
      - Saved cluster data to load, on the host that runs the module.
      - A file in the htools text format, as written by C(hscan) or by
        C(hbal -S) (the format read by C(hbal -t)).
      - Or a file holding an IAllocator request (JSON, as read by
        C(hbal -I)).
      - Deliberate difference from C(hbal -I) 3.0.2, which merges such a file
        twice and so counts every instance twice on its nodes. It is merged
        once here, as C(hail) reads the same file, because the doubled
        figures describe no real cluster.
      - The file format is detected automatically.
      - Or a directory of saved RAPI responses, C(groups.json),
        C(nodes.json), C(instances.json) and C(info.json), the answers to
        C(/2/groups?bulk=1), C(/2/nodes?bulk=1), C(/2/instances?bulk=1) and
        C(/2/info) (as read by C(hbal -m file://DIR)).
      - Without O(data_file), the module reads the live cluster, over LUXI on
        the master (O(luxi_socket), or the master's default socket) or over RAPI
        (O(rapi_url)).
      - Refused together with O(luxi_socket) or O(rapi_url) (only one source is read);
        E(GANETI_RAPI_URL) in the environment is a default that O(data_file) overrides.
      - Input files (this one, C(util_file), C(mond_data), the files of a directory of
        saved RAPI responses) must be regular files of at most 256 MiB; a device, a
        FIFO or a larger file is refused before it is read.
      - A DRBD instance without a secondary node, or with its primary as secondary,
        and duplicate node or instance names are refused, naming them.
    type: path
notes:
  - The cluster data is read on the host that runs the module - the Ansible
    controller for RAPI or a data file (a play on C(localhost), or
    C(delegate_to=localhost)), the master node itself for LUXI.
  - The model and the score follow Ganeti htools 3.0 (C(hbal)).
requirements:
  - numpy (Python library, on the host that runs the module)
'''

    # How the loaded cluster is modelled, like hbal's -U/-G/-O/--exclusion-tags.
    MODEL = r'''
options:
  util_file:
    description:
      - Dynamic utilisation data for the instances, like C(hbal -U).
      - One line per instance, C(name cpu mem dsk net), the fields separated by
        single spaces and the four loads given as numbers.
      - An instance name that is not in the cluster data is an error. This
        is a deliberate difference, C(hbal) 3.0.2 skips such a line silently
        (although its manual says otherwise); a typing error would otherwise
        leave an instance at the default load without a word.
      - Instances not listed keep the default load of C(1.0) for each resource.
      - Ignored when O(ignore_dynu=true).
    type: path
  group:
    description:
      - Name or UUID of the node group to work on, like C(hbal -G).
      - When omitted, the cluster must have exactly one node group that has
        nodes, otherwise the module fails (as C(hbal) does).
      - M(ganeti.htools.ganeti_balance) and M(ganeti.htools.ganeti_cluster_info) also
        take C(all) - every group with nodes, in one plan or one report - unless a node
        group is named C(all).
    type: str
  offline_nodes:
    description:
      - Names of nodes to treat as offline, like C(hbal -O), in addition to
        the nodes that the cluster data marks offline or drained.
      - Instances are moved off these nodes.
    type: list
    elements: str
    default: []
  exclusion_tags:
    description:
      - Tag prefixes for instance exclusion, like C(hbal --exclusion-tags).
      - A prefix C(PREFIX) selects the instance tags that start with
        C(PREFIX:); instances sharing such a tag are kept apart (they
        should not have the same primary node).
      - Added to the prefixes given by the cluster's C(htools:iextags:)
        tags.
    type: list
    elements: str
    default: []
  ignore_dynu:
    description:
      - Ignore all dynamic utilisation data, like C(hbal --ignore-dynu).
      - Every instance load is then zero, and so are the C(cpu_load_cv),
        C(mem_load_cv), C(disk_load_cv) and C(net_load_cv) metrics.
    type: bool
    default: false
  static_kvm_node_memory:
    description:
      - Memory in MiB taken as used by the node itself on KVM nodes, instead of
        the value the node reports, like C(hbal --static-kvm-node-memory).
      - C(0) keeps the value the node reports.
      - Applies to data that names the hypervisor, a live cluster read over
        RAPI, saved RAPI responses and IAllocator files (the cluster's default
        hypervisor, or the request's first enabled one); the htools text format
        names none, so there it changes nothing.
      - Negative values are refused (C(hbal) takes them as C(0)).
    type: int
    default: 4096
'''

    # Modules that act on a live cluster: data_file only for a preview in check mode.
    LIVE_ONLY = r'''
options:
  data_file:
    description:
      - Saved cluster data (any format O(ganeti.htools.ganeti_cluster_info#module:data_file)
        takes), accepted so that one C(module_defaults) for the action group
        C(group/ganeti.htools.ganeti) serves every module of the collection.
      - This module acts on a live cluster. With O(data_file) it only previews, in
        check mode - it reads the saved cluster where it can and says what it would do on
        the live one, changing nothing. Without check mode it refuses, and names the
        connection options it needs instead (O(luxi_socket) or O(rapi_url)).
    type: path
'''
