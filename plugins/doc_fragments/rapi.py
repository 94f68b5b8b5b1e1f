# -*- coding: utf-8 -*-

# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment(object):
    """Options to reach a live Ganeti cluster over RAPI."""

    # Use as: extends_documentation_fragment: [ganeti.htools.rapi]
    DOCUMENTATION = r'''
options:
  rapi_url:
    description:
      - URL of the cluster's RAPI, for example C(https://cluster.example.com:5080).
      - A bare host name means C(https://HOST:5080).
      - Used when the module reads a live cluster (without C(data_file), where it has that option).
      - If not set, the value of the E(GANETI_RAPI_URL) environment variable is used.
    type: str
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
      - Timeout in seconds of each RAPI request.
    type: float
    default: 60
notes:
  - Reads are retried with backoff; job submissions are never retried blindly.
  - These options suit an AWX/Tower custom credential type that injects the
    E(GANETI_RAPI_*) environment variables, and C(module_defaults) with the
    action group C(group/ganeti.htools.ganeti).
'''
