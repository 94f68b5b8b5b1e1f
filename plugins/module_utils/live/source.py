# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where a run gets its cluster from: a data file, or a live cluster over LUXI or RAPI.

Which one: data_file if given; else luxi_socket if given; else rapi_url (the
option or GANETI_RAPI_URL); else, on a Ganeti master, its default LUXI socket
(as `hbal -L` with no path), so a play on the master needs no settings at all.
"""

from __future__ import annotations

import os
from urllib.parse import parse_qsl, urlsplit

from ..backend.detect import load_data_file
from ..backend.parsing import input_file_problem
from ..errors import HtoolsError
from .endpoints import DEFAULT_SOCKET, MOND_PORT
from ..model.node import STATIC_KVM_MEMORY

# Environment variables that stand in for the connection options.
ENV = {
    "rapi_url": "GANETI_RAPI_URL",
    "rapi_user": "GANETI_RAPI_USER",
    "rapi_password": "GANETI_RAPI_PASSWORD",
    "ca_path": "GANETI_RAPI_CA_PATH",
}


# The options naming an input that may be a directory: a directory of saved
# RAPI responses, a directory of CA certificates.
_DIRECTORY_INPUTS = ("data_file", "ca_path")


def unreadable(params, option):
    """Why the path in option `option` cannot be read, or None: it must be a
    regular file (or directory, for some options) of a bounded size."""
    path = params.get(option)
    if path is None:
        return None
    if not os.path.exists(path):
        return "%s: %s does not exist" % (option, path)
    if not os.access(path, os.R_OK):
        return "%s: %s is not readable" % (option, path)
    problem = input_file_problem(os.stat(path), directory_ok=option in _DIRECTORY_INPUTS)
    if problem:
        return "%s: %s %s" % (option, path, problem)
    return None


def url_credentials(url):
    """What a URL may carry of credentials, as secrets to mask: its user information
    (user:password@host), and its query and fragment (?password=...), which a
    RAPI base URL never has."""
    if not url or not any(c in url for c in "@?#"):
        return []
    try:
        parts = urlsplit(url if "://" in url else "https://" + url)
    except ValueError:
        return [url]
    secrets = [s for s in (parts.password, parts.netloc.rpartition("@")[0]) if s] \
        if "@" in parts.netloc else []
    for extra in (parts.query, parts.fragment):
        if extra:
            secrets += [v for pair in parse_qsl(extra, keep_blank_values=True) for v in pair if v]
            secrets.append(extra)
    if not secrets and (parts.query or parts.fragment or url.endswith(("?", "#"))):
        secrets.append(url)
    return secrets


def plain_http_problem(params):
    """Why credentials must not go to this rapi_url in clear text, or None."""
    url = params.get("rapi_url") or ""
    credentials = params.get("rapi_user") or params.get("rapi_password")
    if not credentials or params.get("rapi_allow_plain_http") or \
            not url.strip().lower().startswith("http://"):
        return None
    return ("rapi_url is plain http:// and RAPI credentials are set (rapi_user/rapi_password or "
            "%s/%s): they would cross the network in clear text. Use https:// (Ganeti's RAPI "
            "speaks HTTPS only), or set rapi_allow_plain_http: true for a trusted local relay; "
            "nothing was sent" % (ENV["rapi_user"], ENV["rapi_password"]))


def live_kind(params, exists=os.path.exists):
    """"data_file", "luxi" or "rapi": how the module reaches its cluster (None: no way)."""
    if params.get("data_file"):
        return "data_file"
    if params.get("simulate"):
        return "simulate"
    if params.get("luxi_socket"):
        return "luxi"
    if params.get("rapi_url"):
        return "rapi"
    if exists(DEFAULT_SOCKET):
        return "luxi"
    return None


def client_from_params(params, audit=None, exists=os.path.exists):
    """A LuxiClient or RapiClient for the module's connection options."""
    # the clients are imported here: a run on a data file never loads the network code
    from .luxi import LuxiClient  # pylint: disable=import-outside-toplevel
    from .rapi import RapiClient  # pylint: disable=import-outside-toplevel
    kind = live_kind(dict(params, data_file=None, simulate=None), exists)
    if kind == "luxi":
        client = LuxiClient(params.get("luxi_socket") or DEFAULT_SOCKET,
                            timeout=params.get("timeout") or 60.0)
        client.audit = audit
        return client
    if url_credentials(params.get("rapi_url")):
        raise HtoolsError("rapi_url must not contain credentials; give them as rapi_user and "
                          "rapi_password")
    problem = plain_http_problem(params)
    if problem:
        raise HtoolsError(problem)
    if kind is None:
        raise HtoolsError("no cluster given: set data_file, luxi_socket (on the master), or "
                          "rapi_url (or the %s environment variable); %s does not exist here, "
                          "so this is not a Ganeti master" % (ENV["rapi_url"], DEFAULT_SOCKET))
    client = RapiClient(params["rapi_url"], params.get("rapi_user"),
                        params.get("rapi_password"),
                        validate_certs=params.get("validate_certs", True),
                        ca_path=params.get("ca_path"), timeout=params.get("timeout") or 60.0)
    client.audit = audit
    return client


def read_cluster(params, audit=None, node_order="name"):
    """(ClusterData, Snapshot or None, client or None) from data_file, LUXI or RAPI;
    `node_order`: see backend.rapi_json.load_rapi."""
    static_kvm = params.get("static_kvm_node_memory")
    if static_kvm is None:          # a module without the option: hbal's default
        static_kvm = STATIC_KVM_MEMORY
    if params.get("data_file"):
        data, _fmt = load_data_file(params["data_file"], static_kvm_memory=static_kvm,
                                    node_order=node_order)
        snapshot, client = None, None
    elif params.get("simulate"):
        from ..backend.simulated import load_simulated  # pylint: disable=import-outside-toplevel
        data, snapshot, client = load_simulated(params["simulate"]), None, None
    else:
        # a run on a data file never loads the live read (lock, jobs, RAPI, TLS)
        from .snapshot import Snapshot  # pylint: disable=import-outside-toplevel
        client = client_from_params(params, audit)
        snapshot = Snapshot.read(client, storage_units=bool(params.get("rapi_storage_units")))
        data = snapshot.to_data(source=client.source, static_kvm_memory=static_kvm,
                                node_order=node_order)
    if wants_live_mond(params):
        from ..backend.mond import collector_name  # pylint: disable=import-outside-toplevel
        from .mond import query_monds  # pylint: disable=import-outside-toplevel
        data.mond_reports = query_monds(
            [node.name for node in data.nodes], collector_name(params.get("mond_xen")),
            port=params.get("mond_port") or MOND_PORT, timeout=params.get("mond_timeout") or 10.0)
    return data, snapshot, client


def wants_live_mond(params):
    """Whether the nodes' MonDs are asked: with mond, unless saved reports are
    given or every dynamic load is ignored anyway (hbal asks none then)."""
    return bool(params.get("mond") and not params.get("mond_data")
                and not params.get("ignore_dynu"))
