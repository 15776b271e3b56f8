#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Draw the paper-experiment plots as plain SVG (standard library only).

    python3 docs/plot.py RESULTS.csv OUTDIR

RESULTS.csv is what `tests/sim/paper_experiments.sh --csv FILE` writes (one
row per simulation: scaling, workload, npus, network, dims, bw0, bw1, model,
finish, compute, exposed, comm; times in cycles = ns). Writes
OUTDIR/paper-scaling.svg, paper-breakdown.svg, paper-torus-vs-switch.svg and
paper-bw-sweep.svg, the figures docs/paper-experiments.md embeds.
"""
import csv
import math
import os
import sys
from xml.sax.saxutils import escape

WORKLOADS = ["MLP_ModelParallel", "MLP_HybridParallel_Data_Model",
             "MLP_HybridParallel_Model_Data", "DLRM_HybridParallel",
             "Transformer_HybridParallel"]
SHORT = {"MLP_ModelParallel": "MLP model-par.",
         "MLP_HybridParallel_Data_Model": "MLP data-model",
         "MLP_HybridParallel_Model_Data": "MLP model-data",
         "DLRM_HybridParallel": "DLRM hybrid",
         "Transformer_HybridParallel": "Transformer hybrid"}
COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]
SIZES = [4, 16, 64]
SQUARE = {4: "2x2", 16: "4x4", 64: "8x8"}
FONT = 'font-family="sans-serif"'


class Svg:
    """A minimal SVG canvas: enough for axes, lines, bars and labels."""

    def __init__(self, w, h):
        self.w, self.h, self.items = w, h, []

    def text(self, x, y, s, size=12, anchor="start", rotate=None, weight=None):
        extra = f' transform="rotate({rotate} {x:.1f} {y:.1f})"' if rotate else ""
        extra += f' font-weight="{weight}"' if weight else ""
        self.items.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" {FONT} '
                          f'text-anchor="{anchor}"{extra}>{escape(s)}</text>')

    def line(self, x1, y1, x2, y2, color="#000", width=1, dash=None):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.items.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                          f'stroke="{color}" stroke-width="{width}"{d}/>')

    def rect(self, x, y, w, h, color):
        self.items.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(w, 0):.1f}" '
                          f'height="{max(h, 0):.1f}" fill="{color}"/>')

    def polyline(self, pts, color, width=2, dash=None):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        p = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
        self.items.append(f'<polyline points="{p}" fill="none" stroke="{color}" '
                          f'stroke-width="{width}"{d}/>')
        for x, y in pts:
            self.items.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"/>')

    def save(self, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.w}" '
                    f'height="{self.h}" viewBox="0 0 {self.w} {self.h}">\n')
            f.write(f'<rect width="{self.w}" height="{self.h}" fill="#fff"/>\n')
            f.write("\n".join(self.items))
            f.write("\n</svg>\n")


def load(path):
    rows = {}
    with open(path, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            key = (r["scaling"], r["workload"], int(r["npus"]), r["network"],
                   r["dims"], r["bw0"], r["bw1"], r["model"])
            rows[key] = {k: int(r[k]) for k in ("finish", "compute", "exposed", "comm")}
    return rows


def get(rows, scaling, wl, n, net, bw0, bw1, dims=None, model="unaware"):
    key = (scaling, wl, n, net, dims or SQUARE[n], bw0, bw1, model)
    if key not in rows:
        sys.exit(f"plot.py: no result for {','.join(map(str, key))} in the CSV")
    return rows[key]


def y_axis(svg, x0, y0, h, lo, hi, ticks, fmt, log=False, label=None, x1=None):
    """Left axis from lo (bottom, y0) to hi (y0 - h); returns value -> y."""
    def f(v):
        if log:
            t = (math.log(v) - math.log(lo)) / (math.log(hi) - math.log(lo))
        else:
            t = (v - lo) / (hi - lo)
        return y0 - t * h
    svg.line(x0, y0, x0, y0 - h)
    for v in ticks:
        y = f(v)
        svg.line(x0 - 4, y, x0, y)
        if x1:
            svg.line(x0, y, x1, y, color="#ddd")
        svg.text(x0 - 6, y + 4, fmt(v), size=11, anchor="end")
    if label:
        svg.text(x0 - 42, y0 - h / 2, label, size=12, anchor="middle", rotate=-90)
    return f


def legend(svg, x, y, entries):
    for i, (name, color, dash) in enumerate(entries):
        yy = y + 16 * i
        svg.line(x, yy - 4, x + 22, yy - 4, color=color, width=3, dash=dash)
        svg.text(x + 28, yy, name, size=11)


def scaling(rows, out):
    """Speed-up over 4 NPUs, per workload, strong scaling, both networks;
    the Transformer under weak scaling dashed for contrast."""
    svg = Svg(900, 400)
    svg.text(450, 22, "Strong scaling: speed-up over 4 NPUs (log scale; below 1 = slower)",
             size=14, anchor="middle", weight="bold")
    ticks = [0.125, 0.25, 0.5, 1, 2, 4, 8, 16]
    for p, (net, bw0, bw1, title) in enumerate([("torus", "62", "62", "2D torus, 62 GB/s"),
                                                 ("switch", "600", "37.5", "switched, 600 / 37.5 GB/s")]):
        x0, y0, w, h = 90 + p * 330, 340, 260, 280
        svg.text(x0 + w / 2, y0 - h - 8, title, size=13, anchor="middle")
        fy = y_axis(svg, x0, y0, h, 0.1, 20, ticks, lambda v: f"{v:g}×", log=True,
                    label="speed-up" if p == 0 else None, x1=x0 + w)
        svg.line(x0, fy(1), x0 + w, fy(1), color="#888")
        svg.line(x0, y0, x0 + w, y0)
        xs = [x0 + 30 + i * (w - 60) / 2 for i in range(3)]
        for x, n in zip(xs, SIZES):
            svg.text(x, y0 + 18, f"{n} NPUs", size=11, anchor="middle")
        series = [(wl, "strong", None) for wl in WORKLOADS]
        series.append(("Transformer_HybridParallel", "weak", "6,4"))
        for i, (wl, sc, dash) in enumerate(series):
            f = [get(rows, sc, wl, n, net, bw0, bw1)["finish"] for n in SIZES]
            # data-model is drawn wide: model-data lies on it on the torus
            svg.polyline([(x, fy(f[0] / v)) for x, v in zip(xs, f)],
                         COLORS[i if dash is None else WORKLOADS.index(wl)], dash=dash,
                         width=6 if i == 1 else 2)
    entries = [(SHORT[wl], COLORS[i], None) for i, wl in enumerate(WORKLOADS)]
    entries.append(("Transformer, weak scaling", COLORS[4], "6,4"))
    legend(svg, 720, 80, entries)
    svg.save(os.path.join(out, "paper-scaling.svg"))


def breakdown(rows, out):
    """Compute vs exposed communication, share of the finish time, torus."""
    svg = Svg(900, 380)
    svg.text(450, 22, "Where the time goes: 2D torus 62 GB/s, strong scaling (NPU that finishes last)",
             size=14, anchor="middle", weight="bold")
    x0, y0, h = 80, 300, 250
    fy = y_axis(svg, x0, y0, h, 0, 1, [0, 0.25, 0.5, 0.75, 1], lambda v: f"{v:.0%}",
                label="share of finish time", x1=860)
    bw, gap = 40, 8
    for i, wl in enumerate(WORKLOADS):
        gx = x0 + 20 + i * 150
        for j, n in enumerate(SIZES):
            r = get(rows, "strong", wl, n, "torus", "62", "62")
            x = gx + j * (bw + gap)
            c = r["compute"] / r["finish"]
            svg.rect(x, fy(c), bw, y0 - fy(c), COLORS[0])
            svg.rect(x, fy(1), bw, fy(c) - fy(1), COLORS[3])
            svg.text(x + bw / 2, y0 + 14, str(n), size=10, anchor="middle")
        svg.text(gx + 1.5 * bw + gap, y0 + 30, SHORT[wl], size=11, anchor="middle")
    svg.text(450, y0 + 46, "NPUs per workload", size=11, anchor="middle")
    svg.rect(650, 340, 12, 12, COLORS[0])
    svg.text(667, 350, "compute", size=11)
    svg.rect(740, 340, 12, 12, COLORS[3])
    svg.text(757, 350, "exposed communication", size=11)
    svg.save(os.path.join(out, "paper-breakdown.svg"))


def bars(svg, x0, y0, h, groups, series, fy, colors, bw=18):
    """Grouped bars: groups = [(label, [values per series])]."""
    gw = bw * len(series) + 24
    for i, (label, vals) in enumerate(groups):
        gx = x0 + 14 + i * gw
        for j, v in enumerate(vals):
            svg.rect(gx + j * bw, fy(v), bw - 2, y0 - fy(v), colors[j])
        svg.text(gx + bw * len(series) / 2, y0 + 16, label, size=11, anchor="middle")
    return gw


def torus_vs_switch(rows, out):
    """Finish on the switched system over finish on the torus (> 1: torus wins)."""
    svg = Svg(900, 380)
    svg.text(450, 22, "Switched (600 / 37.5 GB/s) finish ÷ torus (62 GB/s) finish, strong scaling; above 1: the torus wins",
             size=13, anchor="middle", weight="bold")
    x0, y0, h = 80, 300, 250
    fy = y_axis(svg, x0, y0, h, 0, 2.5, [0, 0.5, 1, 1.5, 2, 2.5], lambda v: f"{v:g}",
                label="switched / torus", x1=860)
    svg.line(x0, fy(1), 860, fy(1), color="#000", dash="4,3")
    groups = []
    for wl in WORKLOADS:
        vals = [get(rows, "strong", wl, n, "switch", "600", "37.5")["finish"] /
                get(rows, "strong", wl, n, "torus", "62", "62")["finish"] for n in SIZES]
        groups.append((SHORT[wl], vals))
    bars(svg, x0, y0, h, groups, SIZES, fy, COLORS[:3], bw=42)
    for j, n in enumerate(SIZES):
        svg.rect(600 + j * 90, 340, 12, 12, COLORS[j])
        svg.text(617 + j * 90, 350, f"{n} NPUs", size=11)
    svg.save(os.path.join(out, "paper-torus-vs-switch.svg"))


def bw_sweep(rows, out):
    """Finish at 64 NPUs for each bandwidth, over the torus at 62 GB/s."""
    cfgs = [("torus", "31", "31", "torus 31"), ("torus", "62", "62", "torus 62"),
            ("torus", "128", "128", "torus 128"), ("switch", "150", "18.75", "sw 150/18.75"),
            ("switch", "300", "37.5", "sw 300/37.5"), ("switch", "600", "75", "sw 600/75")]
    svg = Svg(900, 380)
    svg.text(450, 22, "Bandwidth sweep at 64 NPUs, strong scaling: finish ÷ finish on the torus at 62 GB/s",
             size=14, anchor="middle", weight="bold")
    x0, y0, h = 80, 300, 250
    fy = y_axis(svg, x0, y0, h, 0, 2.5, [0, 0.5, 1, 1.5, 2, 2.5], lambda v: f"{v:g}",
                label="relative finish time", x1=860)
    svg.line(x0, fy(1), 860, fy(1), color="#000", dash="4,3")
    groups = []
    for wl in WORKLOADS:
        base = get(rows, "strong", wl, 64, "torus", "62", "62")["finish"]
        groups.append((SHORT[wl], [get(rows, "strong", wl, 64, net, b0, b1)["finish"] / base
                                   for net, b0, b1, _ in cfgs]))
    bars(svg, x0, y0, h, groups, cfgs, fy, COLORS, bw=22)
    for j, (_, _, _, name) in enumerate(cfgs):
        svg.rect(110 + j * 125, 340, 12, 12, COLORS[j])
        svg.text(127 + j * 125, 350, name, size=11)
    svg.save(os.path.join(out, "paper-bw-sweep.svg"))


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: docs/plot.py RESULTS.csv OUTDIR")
    rows = load(sys.argv[1])
    os.makedirs(sys.argv[2], exist_ok=True)
    for fig in (scaling, breakdown, torus_vs_switch, bw_sweep):
        fig(rows, sys.argv[2])


if __name__ == "__main__":
    main()
