# SPDX-License-Identifier: GPL-2.0-only
"""The HTML of the report pages (run-report.py): escaping, paragraphs, tables, plots as
PNG data URIs, the style sheet, the script that tells a headless browser what loaded and
whether anything is wider than the window, and the page's frame, written atomically."""

import base64
import html
import io
import os
import time

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

DPI = 100
# A figure's width in inches: at DPI, 1,200 pixels, what a 1,280-pixel window shows whole.
FIGURE_WIDTH = 12

CSS = """
body { font-family: sans-serif; margin: 1.5em auto; max-width: 1240px; padding: 0 1em;
       color: #222; background: #fff; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font-size: 0.95em; overflow-wrap: anywhere; }
.alert { background: #fde2e2; border: 2px solid #c00; color: #800; padding: 0.6em 1em;
         font-weight: bold; }
.note { color: #555; }
.summary { font-size: 1.05em; background: #f4f8ff; border-left: 4px solid #36c;
           padding: 0.5em 1em; }
img { max-width: 100%; height: auto; }
figure { margin: 0.5em 0; }
nav a { margin-right: 1em; }
div.tall { overflow-y: auto; max-height: 40em; }
div.tall table { font-size: 0.8em; }
div.tall th { position: sticky; top: 0; }
td { overflow-wrap: break-word; }
"""

# Records in the DOM how many images decoded and whether anything is wider than the
# window (a horizontal scroll bar), for checks in a headless browser.
LOAD_SCRIPT = """<script>
window.addEventListener("load", function () {
  var images = document.images, loaded = 0;
  for (var i = 0; i < images.length; i++) {
    if (images[i].complete && images[i].naturalWidth > 0) { loaded++; }
  }
  var wide = 0, all = document.body.getElementsByTagName("*");
  for (var k = 0; k < all.length; k++) {
    if (all[k].scrollWidth > all[k].clientWidth + 1) {
      var overflow = getComputedStyle(all[k]).overflowX;
      if (overflow === "auto" || overflow === "scroll") { wide++; }
    }
  }
  var page = document.documentElement;
  document.body.setAttribute("data-images-loaded", String(loaded));
  document.body.setAttribute("data-images-total", String(images.length));
  document.body.setAttribute("data-page-width", String(page.scrollWidth));
  document.body.setAttribute("data-window-width", String(page.clientWidth));
  document.body.setAttribute("data-scrolling-boxes", String(wide));
});
</script>"""


def esc(value):
    return html.escape(str(value), quote=True)


def para(text, cls=None):
    """A paragraph of plain text (escaped)."""
    attr = f' class="{cls}"' if cls else ""
    return f"<p{attr}>{esc(text)}</p>"


def na(value):
    return "n/a" if value is None else value


def ms(ns, digits=3):
    return "n/a" if ns is None else f"{ns / 1e6:.{digits}f}"


def count(n):
    return "n/a" if n is None else f"{n:,}"


def table(headers, rows, numeric=()):
    """An HTML table; cells are escaped, columns whose index is in `numeric` right-aligned."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = "".join(f'<td class="num">{esc(v)}</td>' if i in numeric else f"<td>{esc(v)}</td>"
                        for i, v in enumerate(row))
        body.append(f"<tr>{cells}</tr>")
    return f"<table>\n<tr>{head}</tr>\n" + "\n".join(body) + "\n</table>"


def tall_table(headers, rows, numeric=()):
    """A table of many rows: it scrolls down in a box of its own, never sideways."""
    return f'<div class="tall">{table(headers, rows, numeric)}</div>'


def figure_html(fig, alt, caption=None):
    """The figure as an <img> with a PNG data URI (no file beside the page)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI)
    plt.close(fig)
    png = buffer.getvalue()
    # The PNG header's IHDR holds the size: the browser lays the page out before decoding.
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    data = base64.b64encode(png).decode("ascii")
    text = f'<figure>\n<img src="data:image/png;base64,{data}" alt="{esc(alt)}" ' \
           f'width="{width}" height="{height}">\n'
    if caption:
        text += f"<figcaption class=\"note\">{esc(caption)}</figcaption>\n"
    return text + "</figure>"


def compact_ranges(numbers):
    """[0, 1, 2, 3, 7, 9, 10] -> '0-3,7,9-10'."""
    numbers = sorted(set(numbers))
    parts, i = [], 0
    while i < len(numbers):
        j = i
        while j + 1 < len(numbers) and numbers[j + 1] == numbers[j] + 1:
            j += 1
        parts.append(str(numbers[i]) if i == j else f"{numbers[i]}-{numbers[j]}")
        i = j + 1
    return ",".join(parts)


def shorten(text, limit=60):
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def page(title, body, db_path, nav=(), alert=""):
    """A whole page: head, title, the note naming the database, the navigation bar (anchor,
    label) pairs, the body's parts and the load script."""
    links = " ".join(f'<a href="{esc(anchor)}">{esc(label)}</a>' for anchor, label in nav)
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        f"<title>{esc(title)}</title>",
        '<link rel="icon" href="data:,">',  # no favicon request
        f"<style>{CSS}</style>", "</head>", "<body>", f"<h1>{esc(title)}</h1>", alert,
        para(f"Results database {db_path}; report made {time.strftime('%Y-%m-%d %H:%M:%S')}.",
             "note"),
        f"<nav>{links}</nav>" if links else "", *body, LOAD_SCRIPT, "</body>", "</html>", ""])


def write_atomically(path, text):
    """Write text to path through a partial file beside it: never a half-written page."""
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)
