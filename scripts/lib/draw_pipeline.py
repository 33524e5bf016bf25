"""Draws the pipeline diagram of CourierCore's article "What a call goes
through" from the article's own numbered list of stages.

Usage: draw_pipeline.py [--check]

The stage titles come from the article (`N. **Title**`), which
CallStageTests holds to `CallStage`, the one list of the stages in the
code; this script only lays them out. Writes
Modules/CourierCore/Sources/CourierCore.docc/Resources/pipeline.svg, or with
--check exits 1 when the file differs from what it would write.
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCC = ROOT / "Modules/CourierCore/Sources/CourierCore.docc"
ARTICLE = DOCC / "WhatACallGoesThrough.md"
DIAGRAM = DOCC / "Resources/pipeline.svg"

# What each stage's box says after its title.
DETAILS = {
    4: "(for a cache or coalescing)",
    5: "(once around the call; may call next again)",
    6: "(may answer from storage, or revalidate)",
    7: ", once per attempt",
    8: "of what the per-call chain returned",
    9: "(once per pass)",
    10: "into the model",
    11: "(when the cache took part)",
    12: "(deliver, or run again)",
    13: ": the model, or one CourierError",
}

# The steps inside the attempt loop, in order; the last is the retry decision.
ATTEMPT_STEPS = [
    "Concurrency group admits the attempt",
    "Reachability gate",
    "Per-attempt interceptors",
    "Plugins: prepare, willSend",
    "Hops: transport; redirects, cookies",
    "Plugins: didReceive",
    "Validation: status, content type, envelope code",
    "RetryPolicy: wait and try again, or stop",
]

WIDTH = 760
INK = "#33415c"
RETRY = "#b3261e"
REPLAY = "#5c6b8a"


def stages():
    titles = {}
    for match in re.finditer(r"^(\d+)\. \*\*(.+?)\*\*", ARTICLE.read_text(), re.MULTILINE):
        titles[int(match.group(1))] = match.group(2).rstrip(".")
    numbers = sorted(titles)
    if numbers != list(range(1, 14)):
        sys.exit(f"draw_pipeline: expected stages 1-13 in {ARTICLE.name}, found {numbers}")
    return titles


def label(number, title):
    detail = DETAILS.get(number, "")
    separator = "" if detail.startswith((",", ":")) or not detail else " "
    return f"{number}  {title}{separator}{detail}"


def escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class Canvas:
    def __init__(self):
        self.items = []

    def box(self, y, text, height=36, fill="#e8eefc", bold=False):
        self.items.append(
            f'<rect x="160" y="{y}" width="440" height="{height}" rx="8" fill="{fill}" '
            f'stroke="{INK}" stroke-width="1.5"/>'
        )
        weight = 600 if bold else 400
        self.items.append(
            f'<text x="380" y="{y + height // 2 + 5}" text-anchor="middle" font-size="14" '
            f'font-weight="{weight}">{escape(text)}</text>'
        )
        return y + height

    def arrow(self, y1, y2):
        self.items.append(
            f'<line x1="380" y1="{y1}" x2="380" y2="{y2}" stroke="{INK}" stroke-width="1.5" '
            f'marker-end="url(#a)"/>'
        )

    def frame(self, x, y, height, fill, text):
        self.items.append(
            f'<rect x="{x}" y="{y}" width="{WIDTH - 2 * x}" height="{height}" rx="12" fill="{fill}" '
            f'stroke="{REPLAY}" stroke-width="1.5" stroke-dasharray="6 4"/>'
        )
        self.items.append(
            f'<text x="{x + 14}" y="{y + 22}" font-size="13" font-weight="600" fill="{INK}">'
            f"{escape(text)}</text>"
        )


def draw(titles):
    canvas = Canvas()
    y = 20
    for number in range(1, 5):
        bottom = canvas.box(y, label(number, titles[number]))
        canvas.arrow(bottom, bottom + 16)
        y = bottom + 16
    first_top = 20

    # Stages 5, 6 and 7 nest: per-call interceptors around the cache around the attempts.
    step_height, step_gap = 34, 12
    steps_height = len(ATTEMPT_STEPS) * step_height + (len(ATTEMPT_STEPS) - 1) * step_gap + 4
    loop_height = 36 + steps_height + 10
    cache_height = 36 + loop_height + 10
    call_height = 36 + cache_height + 10
    canvas.frame(40, y, call_height, "#f4f6fb", label(5, titles[5]))
    canvas.frame(70, y + 36, cache_height, "#eef7f0", label(6, titles[6]))
    canvas.frame(100, y + 72, loop_height, "#fff8e8", label(7, titles[7]))
    step_y = y + 108
    first_step = step_y
    for index, step in enumerate(ATTEMPT_STEPS):
        last = index == len(ATTEMPT_STEPS) - 1
        bottom = canvas.box(
            step_y, step, height=step_height + (4 if last else 0), fill="#fde8e8" if last else "#ffffff", bold=last
        )
        if not last:
            canvas.arrow(bottom, bottom + step_gap)
        step_y = bottom + step_gap
    retry_from = step_y - step_gap - 19
    retry_to = first_step + step_height // 2
    canvas.items.append(
        f'<path d="M 600 {retry_from} C 648 {retry_from}, 648 {retry_to}, 600 {retry_to}" fill="none" '
        f'stroke="{RETRY}" stroke-width="1.5" marker-end="url(#r)"/>'
    )
    middle = (retry_from + retry_to) / 2
    canvas.items.append(
        f'<text x="648" y="{middle}" font-size="12" fill="{RETRY}" text-anchor="middle" '
        f'transform="rotate(-90 648 {middle})">retry</text>'
    )
    y = y + call_height
    canvas.arrow(y, y + 16)
    y += 16

    handlers_middle = None
    for number in range(8, 14):
        last = number == 13
        bottom = canvas.box(
            y, label(number, titles[number]), fill="#dff3e4" if last else "#e8eefc", bold=last
        )
        if number == 12:
            handlers_middle = y + 18
        if not last:
            canvas.arrow(bottom, bottom + 16)
        y = bottom + 16

    # A response handler may run the call again from stage 1.
    canvas.items.append(
        f'<path d="M 160 {handlers_middle} H 24 V {first_top + 18} H 160" '
        f'fill="none" stroke="{REPLAY}" stroke-width="1.5" stroke-dasharray="4 3" marker-end="url(#p)"/>'
    )
    middle = (handlers_middle + first_top + 18) / 2
    canvas.items.append(
        f'<text x="18" y="{middle}" font-size="12" fill="{REPLAY}" text-anchor="middle" '
        f'transform="rotate(-90 18 {middle})">run again</text>'
    )

    height = y - 16 + 20
    markers = "".join(
        f'<marker id="{name}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
        f'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{color}"/></marker>'
        for name, color in (("a", INK), ("r", RETRY), ("p", REPLAY))
    )
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}" font-family="-apple-system, Helvetica, Arial, sans-serif" '
            f'fill="#1b2333">',
            f"<defs>{markers}</defs>",
            f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>',
            *canvas.items,
            "</svg>",
            "",
        ]
    )


def main():
    svg = draw(stages())
    if sys.argv[1:] == ["--check"]:
        if DIAGRAM.read_text() != svg:
            sys.exit(f"draw_pipeline: {DIAGRAM.relative_to(ROOT)} is not drawn from the article; run {__file__}")
        return
    DIAGRAM.write_text(svg)


if __name__ == "__main__":
    main()
