"""A small SVG writer: just the shapes the course's pictures use, one palette for all of them."""

from __future__ import annotations

from html import escape
from pathlib import Path

FONT = "DejaVu Sans, Liberation Sans, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Liberation Mono, monospace"

# One meaning per colour, in every picture.
LANE = "#4c72b0"  # threads and lanes
USED = "#55a868"  # bytes fetched and used
WASTED = "#f0b8b8"  # bytes fetched and thrown away
CONFLICT = "#c44e52"  # serialisation: bank conflicts, one-after-another accesses
HALO = "#dd8452"  # the halo, the moving tiles, broadcast
IDLE = "#e6e6e6"  # idle lanes, unused slots
INK = "#222222"
GRID = "#888888"


class Svg:
    def __init__(self, width: int, height: int):
        self.width, self.height = width, height
        self.items: list[str] = []

    def rect(self, x, y, w, h, fill="none", stroke=GRID, stroke_width=1.0, rx=0, opacity=1.0, dash=None):
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        self.items.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{rx}" fill="{fill}" '
            f'fill-opacity="{opacity}" stroke="{stroke}" stroke-width="{stroke_width}"{extra}/>'
        )

    def text(self, x, y, s, size=16, anchor="middle", weight="normal", fill=INK, mono=False, italic=False):
        style = ' font-style="italic"' if italic else ""
        self.items.append(
            f'<text x="{x:.1f}" y="{y:.1f}" font-family="{MONO if mono else FONT}" font-size="{size}" '
            f'text-anchor="{anchor}" font-weight="{weight}" fill="{fill}"{style} xml:space="preserve">{escape(str(s))}</text>'
        )

    def line(self, x1, y1, x2, y2, stroke=INK, width=1.5, arrow=False, dash=None, opacity=1.0):
        extra = ' marker-end="url(#arrow)"' if arrow else ""
        extra += f' stroke-dasharray="{dash}"' if dash else ""
        self.items.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{stroke}" '
            f'stroke-width="{width}" stroke-opacity="{opacity}"{extra}/>'
        )

    def path(self, d, stroke=INK, width=1.5, fill="none", arrow=False):
        extra = ' marker-end="url(#arrow)"' if arrow else ""
        self.items.append(f'<path d="{d}" stroke="{stroke}" stroke-width="{width}" fill="{fill}"{extra}/>')

    def brace(self, x1, x2, y, label, size=15, below=True):
        """A square bracket under (or over) x1..x2 with a label."""
        tip = 8 if below else -8
        self.path(f"M{x1:.1f},{y:.1f} v{tip} H{x2:.1f} v{-tip}", stroke=INK, width=1.2)
        self.text((x1 + x2) / 2, y + (tip + 18 if below else tip - 6), label, size=size)

    def save(self, path: Path) -> None:
        defs = (
            '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{INK}"/></marker></defs>'
        )
        body = "\n".join(self.items)
        path.write_text(
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
            f'viewBox="0 0 {self.width} {self.height}">\n{defs}\n'
            f'<rect width="100%" height="100%" fill="white"/>\n{body}\n</svg>\n'
        )
