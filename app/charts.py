"""The app's two charts, built apart from the pages so tests can read what they draw.

Readiness: a percentage is drawn on a fixed 0-100 axis (an auto-scaled 0-13 % axis made 12.5 % look full), with
room for whole topic names. Radar: axes carry the checklist items' names. Matplotlib draws text with its own
fonts, and its cache may predate the system's CJK fonts: `cjk_font` registers one if the system has it; without
one, a zh radar names its axes in English rather than drawing empty boxes.
"""

from __future__ import annotations

import math
import textwrap
from functools import cache
from pathlib import Path

import altair as alt
import pandas as pd
from matplotlib import font_manager
from matplotlib.figure import Figure

CJK_HINTS = ("NotoSansCJK", "NotoSerifCJK", "wqy", "WenQuanYi", "SourceHanSans", "PingFang", "msyh", "simhei",
             "Hiragino Sans GB", "DroidSansFallback")
LABEL_PX = 260  # room for a topic's name left of its bar


def readiness_chart(names: list[str], percents: list[float], topic: str, percent: str) -> alt.Chart:
    """Horizontal bars in the given (taxonomy) order on a 0-100 % axis; `topic`/`percent` are the axis titles."""
    df = pd.DataFrame({topic: names, percent: percents})
    return alt.Chart(df).mark_bar().encode(
        x=alt.X(f"{percent}:Q", scale=alt.Scale(domain=[0, 100]), title=percent),
        y=alt.Y(f"{topic}:N", sort=names, title=None, axis=alt.Axis(labelLimit=LABEL_PX)),
        tooltip=[topic, percent],
    )


@cache
def cjk_font() -> str | None:
    """The family name of a CJK-capable font, registered with matplotlib; None when the system has none."""
    for f in font_manager.fontManager.ttflist:
        if any(h.lower() in Path(f.fname).name.lower() for h in CJK_HINTS):
            return f.name
    for path in font_manager.findSystemFonts():
        if any(h.lower() in Path(path).name.lower() for h in CJK_HINTS):
            try:
                font_manager.fontManager.addfont(path)
                return font_manager.FontProperties(fname=path).get_name()
            except (OSError, RuntimeError, ValueError):
                continue
    return None


def radar_labels(names: list[str], wide: bool) -> list[str]:
    """Names wrapped to fit around the circle (CJK characters are about twice as wide as Latin ones)."""
    width = 9 if wide else 18
    return ["\n".join(textwrap.wrap(n, width, max_lines=3, placeholder="…")) for n in names]


def radar(names_zh: list[str], names_en: list[str], values: list[int], lang: str) -> tuple[Figure, str]:
    """The radar figure and the language its axis names are in (en when a zh UI has no CJK font)."""
    font = cjk_font() if lang == "zh" else None
    shown = "zh" if lang == "zh" and font else "en"
    names = names_zh if shown == "zh" else names_en
    angles = [2 * math.pi * k / len(values) for k in range(len(values))]
    fig = Figure(figsize=(6, 6))  # not pyplot: its global state is not safe across Streamlit's threads
    ax = fig.add_subplot(projection="polar")
    ax.plot([*angles, angles[0]], [*values, values[0]], color="tab:blue", lw=2)
    ax.fill([*angles, angles[0]], [*values, values[0]], color="tab:blue", alpha=0.25)
    ax.set_xticks(angles, radar_labels(names, wide=shown == "zh"), fontsize=7, family=font or "sans-serif")
    ax.set_ylim(0, 5)
    ax.set_yticks([1, 2, 3, 4, 5], ["1", "2", "3", "4", "5"], color="0.5", fontsize=7)
    fig.tight_layout()
    return fig, shown
