# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """Options to reach a live Ganeti cluster: over LUXI on the master, or over RAPI."""

    # Use as: extends_documentation_fragment: [ganeti.htools.rapi]
    DOCUMENTATION = r'''
options:
  luxi_socket:
    description:
      - Path of the Ganeti master's LUXI query socket, the one C(hbal -L) and the
        C(gnt-*) commands use; usually C(/var/run/ganeti/socket/ganeti-query).
      - The module then runs on the master node itself and needs neither a RAPI
        user nor a certificate; it must run as root (C(become=true)) or as a member
        of the socket's group.
      - Takes precedence over O(rapi_url) and E(GANETI_RAPI_URL).
      - When neither this, O(rapi_url) nor C(data_file) is given and the default
        socket exists on the host that runs the module (a Ganeti master), that
        socket is used.
    type: path
  rapi_url:
    description:
      - URL of the cluster's RAPI, for example C(https://cluster.example.com:5080).
      - A bare host name means C(https://HOST:5080).
      - Used when the module reads a live cluster (without C(data_file), where it has that option).
      - If not set, the value of the E(GANETI_RAPI_URL) environment variable is used.
      - Credentials in the URL are refused, as user information (C(user:password@host))
        and in a query string (C(?password=...)); their values are masked in all output.
        A RAPI URL has no query string or fragment at all.
      - An C(http://) URL is refused when credentials are set (O(rapi_user),
        O(rapi_password) or their environment variables), unless O(rapi_allow_plain_http=true).
    type: str
  rapi_allow_plain_http:
    description:
      - Accept an C(http://) O(rapi_url) with credentials, which are then sent in clear
        text (HTTP basic authentication) to whoever is on the path.
      - Only for a RAPI behind a trusted local relay; Ganeti's own RAPI speaks HTTPS only.
    type: bool
    default: false
  rapi_user:
    description:
      - RAPI user name (HTTP basic authentication).
      - Writing (executing plans, taking the lock) needs a user with the C(write) option.
      - If not set, the value of the E(GANETI_RAPI_USER) environment variable is used.
    type: str
  rapi_password:
    description:
      - Password of O(rapi_user). Never logged.
      - If not set, the value of the E(GANETI_RAPI_PASSWORD) environment variable is used.
    type: str
  validate_certs:
    description:
      - Verify the RAPI server's TLS certificate.
      - Ganeti clusters use a self-signed certificate by default; give its CA with
        O(ca_path) rather than turning verification off.
    type: bool
    default: true
  ca_path:
    description:
      - File with the CA certificate(s) to verify the RAPI server with.
      - If not set, the value of the E(GANETI_RAPI_CA_PATH) environment variable is used.
    type: path
  rapi_storage_units:
    description:
      - Also read every node's storage units over RAPI (C(/2/nodes/NAME/storage)),
        that is the volume groups when the C(drbd) or C(plain) template is enabled
        and the file storage directory when C(file) is.
      - Disks then fit into the unit of their kind and the free-disk metric is
        taken per unit (the collection's multi-storage model, see the README).
      - Ganeti answers these reads with jobs, so they need a RAPI user with
        write access, and take a few seconds.
      - Off by default, the model is exactly that of C(hbal -m), which knows
        one disk pool per node.
    type: bool
    default: false
  timeout:
    description:
      - Timeout in seconds of each RAPI or LUXI call, the most a call may take in all.
      - Over RAPI a read that fails to connect or gets HTTP 502, 503 or 504 is retried
        up to 4 times with a growing pause, but only within this bound; the error then
        says how many attempts were made and how long was waited.
    type: float
    default: 60
requirements:
  - requests (Python library, on the host that runs the module; only to reach a cluster over RAPI)
notes:
  - Two ways to reach a cluster. On the master node, through LUXI (O(luxi_socket),
    or nothing at all there), reading the same data as C(hbal -L). From anywhere, through
    RAPI (O(rapi_url) and a RAPI user).
  - Over RAPI, reads are retried with backoff within O(timeout); job submissions are never
    retried blindly, over RAPI or LUXI (a job whose answer was lost is looked up by its reason).
  - These options suit an AWX/Tower custom credential type that injects the
    E(GANETI_RAPI_*) environment variables, and C(module_defaults) with the
    action group C(group/ganeti.htools.ganeti).
'''
