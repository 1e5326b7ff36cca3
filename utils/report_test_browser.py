# SPDX-License-Identifier: GPL-2.0-only
"""A report page as headless Chromium renders it, for the report pages' tests
(test-run-report.py, test-compare-report.py): the DOM after load, the console log, the
screenshot, and what the page's load script records (images decoded, page and window
widths, boxes that scroll sideways)."""

import os
import re
import shutil
import subprocess
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.image as mpimg  # noqa: E402

CHROMIUM = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser"),
                             "/usr/bin/chromium") if p and os.access(p, os.X_OK)), None)
NO_CHROMIUM = ("no Chromium binary (chromium, chromium-browser or /usr/bin/chromium; "
               "Debian: apt-get install chromium)")
# Any console message: the pages write none, and Chromium logs console.error() at
# INFO level ("INFO:CONSOLE:3"), so a level filter would miss it.
CONSOLE_LINE = re.compile(r":CONSOLE[:(]|Uncaught")
WINDOW_WIDTH = 1280


def open_page(page, directory, *extra):
    """Chromium's DOM dump (stdout) and log (stderr) of `page`, a fresh profile each time,
    in a window 1,280 pixels wide unless `extra` says otherwise."""
    profile = tempfile.mkdtemp(prefix="profile-", dir=directory)
    size = [] if any(a.startswith("--window-size") for a in extra) else \
        [f"--window-size={WINDOW_WIDTH},2400"]
    result = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
         "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000", *size, *extra,
         "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=180)
    return result.stdout, result.stderr


def console_errors(log):
    return [line for line in log.splitlines() if CONSOLE_LINE.search(line)]


def body_numbers(dom, *names):
    """The integers the load script set on <body> (data-NAME), None if it did not run."""
    body = re.search(r"<body[^>]*>", dom)
    values = []
    for name in names:
        found = re.search(rf'data-{name}="(\d+)"', body.group(0)) if body else None
        if not found:
            return None
        values.append(int(found.group(1)))
    return tuple(values)


def images_loaded(dom):
    """(images decoded, images) of the page."""
    return body_numbers(dom, "images-loaded", "images-total")


def sideways(dom):
    """(how much wider the page is than the window, boxes that scroll sideways): (0, 0)
    when there is no horizontal scroll bar."""
    numbers = body_numbers(dom, "page-width", "window-width", "scrolling-boxes")
    if numbers is None:
        return None
    page, window, boxes = numbers
    return max(page - window, 0), boxes


def non_background(screenshot):
    """The fraction of the screenshot's pixels that differ from its top-left pixel, and
    its (height, width)."""
    pixels = mpimg.imread(screenshot)
    rgb = pixels[:, :, :3]
    background = rgb[0, 0]
    return float((abs(rgb - background).max(axis=2) > 0.1).mean()), pixels.shape[:2]
