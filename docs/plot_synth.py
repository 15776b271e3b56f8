#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Draw docs/synth.md's figures as plain SVG (standard library only).

    python3 docs/plot_synth.py OUTDIR NAME=COMPARE.json...

Each COMPARE.json is what `chakra synth compare REAL SYNTH --json
--quantiles 200 [--network N --system S]` prints. Writes, into OUTDIR:
  synth-<NAME>-ecdf.svg   empirical CDFs, real vs synthetic, of message size
                          (all collectives) and compute duration (all compute
                          nodes), log-scaled x axis, with the KS statistic;
  synth-iteration.svg     simulated iteration time, synthetic / real, one bar
                          per NAME that was simulated, with the +-5% band.
(docs/synth.md lists the commands that made the committed figures.)
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot import Svg, COLORS  # noqa: E402  (the project's minimal SVG canvas)


def ecdf_panel(svg, x0, y0, w, h, dist, title):
    """One panel: two step curves from the quantiles, x in log10."""
    qr = [v for v in dist.get("quantiles_real", []) if v is not None]
    qs = [v for v in dist.get("quantiles_synth", []) if v is not None]
    if not qr or not qs:
        return
    lo = max(min(min(qr), min(qs)), 0.5)
    hi = max(max(qr), max(qs), lo * 10)
    llo, lhi = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    if lhi == llo:
        lhi += 1

    def px(v):
        v = max(v, 10 ** llo)
        return x0 + (math.log10(v) - llo) / (lhi - llo) * w

    def py(p):
        return y0 + h - p * h

    svg.line(x0, y0 + h, x0 + w, y0 + h)
    svg.line(x0, y0, x0, y0 + h)
    for e in range(llo, lhi + 1):
        svg.line(px(10 ** e), y0 + h, px(10 ** e), y0 + h + 4)
        svg.text(px(10 ** e), y0 + h + 16, "1e%d" % e, size=10, anchor="middle")
    for p in (0, 0.5, 1):
        svg.text(x0 - 6, py(p) + 4, "%g" % p, size=10, anchor="end")
        svg.line(x0 - 3, py(p), x0, py(p))
    for q, color, dash in ((qr, COLORS[0], None), (qs, COLORS[1], "5,3")):
        n = len(q)
        pts = []
        for i, v in enumerate(sorted(q)):
            pts.append((px(v), py(i / n)))
            pts.append((px(v), py((i + 1) / n)))
        p = " ".join("%.1f,%.1f" % xy for xy in pts)
        d = ' stroke-dasharray="%s"' % dash if dash else ""
        svg.items.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>'
                         % (p, color, d))
    svg.text(x0 + w / 2, y0 - 8, title, size=12, anchor="middle", weight="bold")
    svg.text(x0 + w / 2, y0 + h + 32,
             "KS %.3f   (n real %d, synthetic %d)" % (dist["ks"], dist["n_real"], dist["n_synth"]),
             size=11, anchor="middle")


def ecdf_figure(path, name, d):
    dists = {x["name"]: x for x in d["distributions"]}
    svg = Svg(760, 300)
    svg.text(380, 20, "%s: real vs synthetic (empirical CDF)" % name, size=14, anchor="middle",
             weight="bold")
    if "size/all" in dists:
        ecdf_panel(svg, 60, 60, 280, 170, dists["size/all"], "message size, bytes")
    if "duration/all" in dists:
        ecdf_panel(svg, 440, 60, 280, 170, dists["duration/all"], "compute duration, ns")
    svg.line(250, 285, 280, 285, COLORS[0], 2)
    svg.text(285, 289, "real", size=11)
    svg.line(340, 285, 370, 285, COLORS[1], 2, dash="5,3")
    svg.text(375, 289, "synthetic", size=11)
    svg.save(path)


def iteration_figure(path, rows):
    n = len(rows)
    w, h = 100 + 70 * n, 320
    svg = Svg(w, h)
    x0, y0, ph = 60, 40, 200
    lo, hi = 0.9, 1.1

    def py(v):
        return y0 + ph - (min(max(v, lo), hi) - lo) / (hi - lo) * ph

    svg.text(w / 2, 22, "simulated iteration time, synthetic / real", size=14, anchor="middle",
             weight="bold")
    svg.rect(x0, py(1.05), 70 * n, py(0.95) - py(1.05), "#eeeeee")
    for v in (0.9, 0.95, 1.0, 1.05, 1.1):
        svg.line(x0 - 3, py(v), x0 + 70 * n, py(v), "#999" if v != 1.0 else "#000", 1,
                 dash=None if v == 1.0 else "2,3")
        svg.text(x0 - 6, py(v) + 4, "%.2f" % v, size=10, anchor="end")
    for i, (name, ratio) in enumerate(rows):
        x = x0 + 70 * i + 15
        top = py(max(ratio, 1.0))
        bot = py(min(ratio, 1.0))
        svg.rect(x, top, 40, max(bot - top, 1.5), COLORS[2] if abs(ratio - 1) <= 0.05 else COLORS[3])
        svg.text(x + 20, py(ratio) + (-6 if ratio >= 1 else 14), "%.3f" % ratio, size=10,
                 anchor="middle")
        svg.text(x + 20, y0 + ph + 14, name, size=10, anchor="end", rotate=-40)
    svg.save(path)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rows = []
    for arg in sys.argv[2:]:
        name, path = arg.split("=", 1)
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
        ecdf_figure(os.path.join(out, "synth-%s-ecdf.svg" % name), name, d)
        if "iteration" in d:
            rows.append((name, d["iteration"]["ratio"]))
    if rows:
        iteration_figure(os.path.join(out, "synth-iteration.svg"), rows)


if __name__ == "__main__":
    main()
