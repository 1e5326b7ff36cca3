# SPDX-License-Identifier: GPL-2.0-only
"""A results database's runs as the scripts of utils/ see them.

Shared by the figure scripts (plot_common.py) and sweep.py, which import it from their own directory
(`python3 utils/x.py` puts utils/ first on sys.path).
"""

import os
import socket


def process_alive(pid):
    """Whether a process with this id exists on this host (another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def run_state(status, pid, host):
    """A run's status as stored, except that a 'running' run whose process is gone
    (same host, no such pid) is 'abandoned': it was killed and will never finish."""
    if (status == "running" and pid is not None and host == socket.gethostname()
            and not process_alive(int(pid))):
        return "abandoned"
    return status
