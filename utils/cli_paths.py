# SPDX-License-Identifier: GPL-2.0-only
"""The files the scripts of utils/ are given: no output may be one of their inputs, an
output is checked before anything is read, and a database they only read is opened
read-only, leaving nothing beside it.

Shared by timeline.py, run-report.py, plot-figures.py (through plot_common.py),
plot-faults.py, flow-validation.py, compare-results.py and sweep.py, which import it
from their own directory (`python3 utils/x.py` puts utils/ first on sys.path).
"""

import os
import sqlite3
import tempfile
from urllib.parse import quote

# The files SQLite keeps beside a database while it is used: writing one corrupts it.
SIDE_FILES = ("-wal", "-shm", "-journal")
SQLITE_HEADER = b"SQLite format 3\0"


class PathError(Exception):
    """A path the script was given cannot be used: exit 2, nothing written."""


# ----------------------------------------------------------------------------- clashes


def same_file(a, b):
    """Whether paths a and b name one file: the same path once symbolic links are
    resolved, or, when both exist, the same inode (a hard link)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return False


def output_file(flag, path):
    """An output file as check_distinct takes it: [(path, how it is named)]."""
    return [(path, f"{flag} {path}")]


def output_dir(flag, path, names):
    """An output directory and the files written in it."""
    return [(path, f"{flag} {path}")] + [
        (os.path.join(path, name), f"{flag} {path} would write {os.path.join(path, name)}, which")
        for name in names]


def input_file(path, what):
    """A file read, named `what` in a message: [(path, 'WHAT PATH')]."""
    return [(path, f"{what} {path}")]


def input_database(path, what="the input database"):
    """A database read: the file, and the files SQLite keeps beside it (beside the file
    itself, when path is a link)."""
    inputs = [(path, f"{what} {path}")]
    for base in dict.fromkeys((path, os.path.realpath(path))):
        inputs += [(f"{base}{suffix}", f"the {suffix[1:]} file of {what} {path}")
                   for suffix in SIDE_FILES]
    return inputs


def check_distinct(outputs, inputs):
    """Refuse (PathError) when an output names an input: the message names both."""
    for out_path, out_name in outputs:
        for in_path, in_name in inputs:
            if same_file(out_path, in_path):
                raise PathError(f"{out_name} is {in_name}")


# ----------------------------------------------------------------------------- outputs


def check_output_file(flag, path):
    """Refuse, before anything is read, an output file that cannot be written: a
    directory or another file that is not a regular one (a device), or a path whose
    directory is missing or not writable (tried with a temporary file)."""
    if os.path.isdir(path):
        raise PathError(f"{flag} {path}: is a directory")
    if os.path.exists(path) and not os.path.isfile(path):
        raise PathError(f"{flag} {path}: exists and is not a regular file")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        what = "is not a directory" if os.path.exists(parent) else "does not exist"
        raise PathError(f"{flag} {path}: its directory {parent} {what}")
    probe(flag, path, parent)


def check_output_dir(flag, path):
    """Refuse, before anything is read, an output directory that cannot be used: a file
    that is not a directory, or a directory that cannot be written or created (both
    tried, without leaving anything)."""
    if os.path.exists(path):
        if not os.path.isdir(path):
            raise PathError(f"{flag} {path}: exists and is not a directory")
        probe(flag, path, path)
        return
    ancestor = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(ancestor):
        ancestor = os.path.dirname(ancestor)
    if not os.path.isdir(ancestor):
        raise PathError(f"{flag} {path}: {ancestor} is not a directory")
    try:
        os.rmdir(tempfile.mkdtemp(dir=ancestor, prefix=".probe-"))
    except OSError as e:
        raise PathError(f"{flag} {path}: cannot create a directory in {ancestor} "
                        f"({e.strerror})") from None


def probe(flag, path, directory):
    try:
        fd, name = tempfile.mkstemp(dir=directory, prefix=".probe-")
        os.close(fd)
        os.unlink(name)
    except OSError as e:
        raise PathError(f"{flag} {path}: cannot write in {directory} ({e.strerror})") from None


# ----------------------------------------------------------------------------- reading


def wal_mode(path):
    """Whether the database file's header says WAL mode (read and write versions 2)."""
    try:
        with open(path, "rb") as f:
            header = f.read(20)
    except OSError:
        return False
    return header[:16] == SQLITE_HEADER and header[18:20] == b"\x02\x02"


class ReadOnlyConnection(sqlite3.Connection):
    """A connection of connect_readonly: it knows whether it trusts the file not to change."""

    path = None
    immutable = False
    stamp = None

    def check_unchanged(self):
        """Raise sqlite3.OperationalError when the file was opened as immutable and a
        writer has changed it since: what was read may mix two states."""
        if self.immutable and file_stamp(self.path) != self.stamp:
            raise sqlite3.OperationalError("it changed while it was read (another process "
                                           "wrote to it); run again")


def file_stamp(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def readonly_uri(path):
    """The URI that opens the database at path read-only without leaving files beside it,
    and whether it says immutable. PathError for a missing file or a directory.

    mode=ro alone never creates the database, but SQLite reads a WAL-mode database
    through its -wal and -shm files and creates them when they are missing, even
    read-only, and a read-only connection cannot remove them when it closes. So a
    WAL-mode database without a -wal file, which no process has open (a writer keeps
    that file while it is connected), is opened immutable=1: no locks and no -wal or
    -shm. With a -wal file beside it (a writer is running, or one was killed before it
    cleaned up), the database's latest rows are in that file, so it is opened with
    mode=ro and shares the -wal and -shm files that are already there. A database in
    another journal mode (rollback) leaves nothing with mode=ro. A writer that opens the
    database while it is read as immutable writes to a new -wal file and leaves the main
    file alone until it checkpoints; check_unchanged() then says so.
    """
    real = os.path.realpath(path)
    if not os.path.exists(real):
        raise PathError(f"{path}: no such file")
    if not os.path.isfile(real):
        raise PathError(f"{path}: not a regular file")
    immutable = wal_mode(real) and not os.path.exists(real + "-wal")
    return f"file:{quote(real)}?mode=ro" + ("&immutable=1" if immutable else ""), immutable


def connect_readonly(path, **kwargs):
    """A read-only connection to the database at path (sqlite3.connect's keyword
    arguments), a ReadOnlyConnection; PathError for a missing file or a directory."""
    stamp = file_stamp(os.path.realpath(path))
    uri, immutable = readonly_uri(path)
    conn = sqlite3.connect(uri, uri=True, factory=ReadOnlyConnection, **kwargs)
    conn.path, conn.immutable, conn.stamp = os.path.realpath(path), immutable, stamp
    return conn
