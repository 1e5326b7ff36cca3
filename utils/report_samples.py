# SPDX-License-Identifier: GPL-2.0-only
"""What the report pages read from a results database's tables of samples, summed and
binned in SQL and read row by row: the columns an older file lacks, a series' sampling
interval, time bins that merge a long run's samples, and the link utilization matrix of
a heat map (run-report.py's run page and its comparison page)."""

import numpy as np

MAX_COLUMNS = 1200  # time bins of the heat map and port series; more are merged


def select_columns(db, table_name, wanted):
    """The column list for SELECT: NULL for columns an older file's table lacks."""
    have = db.columns(table_name)
    return ", ".join(c if c in have else f"NULL AS {c}" for c in wanted)


def has_table(db, name, columns):
    return name in db.tables and set(columns) <= db.columns(name)


def sample_interval(params, keys, db, table, series, where, args):
    """The sampling interval: from params_json when set, else the smallest gap between
    distinct sample times of one series (rows that would be all zero may be absent), else
    the first sample's time. Worked out in SQL over table's rows that match `where`
    (with args), a series being the rows that agree on the columns `series`."""
    for key in keys:
        value = params.get(key)
        if isinstance(value, (int, float)) and value > 0:
            return int(value)
    columns = ", ".join(series)
    (gap,) = db.query(f"SELECT MIN(t_ns - previous) FROM (SELECT t_ns, LAG(t_ns) OVER"
                      f" (PARTITION BY {columns} ORDER BY t_ns) AS previous FROM"
                      f" (SELECT DISTINCT {columns}, t_ns FROM {table} WHERE {where}))"
                      " WHERE t_ns > previous", args)[0]
    if gap is not None:
        return gap
    (first,) = db.query(f"SELECT MIN(t_ns) FROM {table} WHERE {where}", args)[0]
    return max(first, 1) if first is not None else 1


class TimeBins:
    """Samples of `interval` ns up to `last_ns` in at most MAX_COLUMNS bins: a run of many
    samples is merged into fewer columns without ever holding one per sample."""

    def __init__(self, interval, last_ns, columns=MAX_COLUMNS):
        self.interval = interval
        self.samples = max(1, round(last_ns / interval))
        self.merged = -(-self.samples // columns)  # samples per bin
        self.count = -(-self.samples // self.merged)

    def index(self, t_ns):
        """The bin of the sample at t_ns, which covers the interval ending at t_ns."""
        return min(max(round(t_ns / self.interval) - 1, 0), self.samples - 1) // self.merged

    @property
    def end_ms(self):
        return self.count * self.merged * self.interval / 1e6

    def describe(self, how):
        return f", {self.merged} merged per {how}" if self.merged > 1 else ""


# Where the interval of link samples is in params_json (older and newer writers).
LINK_INTERVAL_KEYS = ("linkSampleIntervalNs", "sample_interval_ns")


def link_names(db, run_id):
    """link id -> (node_a, node_b, rate_bps) from the links table."""
    if not has_table(db, "links", ["run_id", "link_id", "node_a", "node_b", "rate_bps"]):
        return {}
    return {link: (a, b, rate) for link, a, b, rate in db.query(
        "SELECT link_id, node_a, node_b, rate_bps FROM links WHERE run_id = ?", (run_id,))}


def fabric_rows(db, table):
    """The SQL condition that keeps a sample table's fabric rows: since schema 7 the
    NVSwitch ports' rows (kind 'nvswitch') share link_samples and port_samples."""
    return " AND kind = 'fabric'" if "kind" in db.columns(table) else ""


def link_totals(db, run_id):
    """(link, direction) -> (bytes over the run, last sample time), summed in SQL."""
    if not has_table(db, "link_samples", ["run_id", "link_id", "direction", "t_ns",
                                          "tx_bytes"]):
        return {}
    return {(link, direction): (total, last) for link, direction, total, last in db.query(
        "SELECT link_id, direction, SUM(tx_bytes), MAX(t_ns) FROM link_samples"
        f" WHERE run_id = ?{fabric_rows(db, 'link_samples')} GROUP BY link_id, direction",
        (run_id,))}


def link_interval(db, run_id, params):
    return sample_interval(params, LINK_INTERVAL_KEYS, db, "link_samples",
                           ("link_id", "direction"),
                           f"run_id = ?{fabric_rows(db, 'link_samples')}", (run_id,))


def utilization_matrix(db, run_id, busy, links, interval, bins):
    """Rows: the directed links `busy`; columns: bins; values: the mean utilization over
    the samples a bin merges, each sample capped at 1. Returns it and the largest sample
    (uncapped). The jobs' bytes of one interval are summed in SQL; rows are read one by
    one, so a long run's samples are never held."""
    index = {key: i for i, key in enumerate(busy)}
    matrix = np.zeros((len(busy), bins.count))
    peak = 0.0
    values = ",".join("(?, ?)" for _ in busy)
    for link, direction, t, tx in db.rows(
            "SELECT link_id, direction, t_ns, SUM(tx_bytes) FROM link_samples"
            f" WHERE run_id = ?{fabric_rows(db, 'link_samples')}"
            f" AND (link_id, direction) IN (VALUES {values})"
            " GROUP BY link_id, direction, t_ns", (run_id, *[v for key in busy for v in key])):
        utilization = tx * 8 / (interval * 1e-9 * links[link][2])
        peak = max(peak, utilization)
        matrix[index[(link, direction)], bins.index(t)] += min(utilization, 1.0) / bins.merged
    return matrix, peak


def link_label(links, link, direction):
    a, b = links[link][:2]
    src, dst = (a, b) if direction == 0 else (b, a)
    return f"link {link}: {src}->{dst}"
