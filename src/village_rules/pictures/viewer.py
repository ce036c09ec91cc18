"""A step-through viewer: one self-contained HTML page that tells a game one action at a time.

`viewer_html(story)` writes the page for a `Story`: the board after each action (the SVG
pictures of `svg.state_svg`), previous / next buttons, a slider and the arrow keys, the
action in the rulebook's words with the rule IDs it fired, and the step a witness is about
(where a query holds, where two readings part, where an invariant breaks) highlighted.

The page needs no server and no network: the pictures are inside it, each compressed
(raw deflate, base64) and unpacked by the browser's own `DecompressionStream`, so a game of
a thousand actions stays a page of a few megabytes. It is a pure function of the story (the
same story gives the same bytes). `village_rules.check.stories` makes stories from logs
and witnesses; `village-rules view` writes the page.
"""

from __future__ import annotations

import base64
import html
import json
import zlib
from dataclasses import dataclass

from village_rules.data.text import for_xml


@dataclass(frozen=True, slots=True)
class Frame:
    """The board after one step: its picture, and the action that led there (None for the
    set-up) in the log's notation and in words, with the seat that took it and the rule
    IDs the engine recorded while applying it."""

    svg: str
    action: str | None = None
    words: str = ""
    seat: int | None = None
    rules: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Story:
    """A game told one step at a time: `frames[i]` is the state after action `first + i`
    (`first` 0: `frames[0]` is the start); `highlight` is the step the story is about (None:
    no such step) and `note` says what happens there. A story that starts later than the
    start (`first` > 0) shows only its last steps, and says so."""

    title: str
    kind: str
    summary: str
    frames: tuple[Frame, ...]
    highlight: int | None = None
    note: str = ""
    first: int = 0
    detail: str = ""
    """More about the highlighted step (e.g. the two readings' states), shown folded."""


def _packed(svg: str) -> str:
    """The picture as raw deflate in base64 (`DecompressionStream("deflate-raw")` reads it)."""
    squeeze = zlib.compressobj(9, zlib.DEFLATED, -15)
    data = squeeze.compress(svg.encode()) + squeeze.flush()
    return base64.b64encode(data).decode("ascii")


def _json_for_script(value: object) -> str:
    """JSON that can stand inside a `<script>` element (no `<`, so no `</script>`)."""
    return json.dumps(value, ensure_ascii=True, separators=(",", ":")).replace("<", "\\u003c")


def _e(text: str) -> str:
    return html.escape(for_xml(text))


_CSS = """
body { font-family: system-ui, sans-serif; margin: 1em auto; max-width: 1300px; color: #222; }
h1 { font-size: 1.3em; margin: 0.2em 0; } .summary { color: #444; margin: 0.2em 0 0.6em; }
.controls { display: flex; gap: 0.6em; align-items: center; flex-wrap: wrap; position: sticky; top: 0;
  background: #fff; padding: 0.4em 0; z-index: 1; }
.controls input[type=range] { flex: 1; min-width: 20em; }
#step { font-variant-numeric: tabular-nums; min-width: 9em; }
#caption { border: 2px solid #ddd; border-radius: 4px; padding: 0.4em 0.6em; margin: 0.4em 0; }
#caption.highlighted { border-color: #ffb000; background: #fff7e0; }
#note { font-weight: bold; color: #a05a00; } #note[hidden] { display: none; }
#detail { font-weight: normal; color: #333; } #detail pre { white-space: pre-wrap; font-size: 0.85em; }
#rules { color: #555; font-size: 0.9em; } #board svg { max-width: 100%; height: auto; }
#board.highlighted { outline: 4px solid #ffb000; }
"""

_SCRIPT = """
(function () {
  const story = JSON.parse(document.getElementById("story").textContent);
  const frames = story.frames, first = story.first, last = first + frames.length - 1;
  const slider = document.getElementById("slider"), board = document.getElementById("board");
  // Only a story with a highlighted step has these two (OPTIONAL_IDS): never assume them.
  const note = document.getElementById("note"), jump = document.getElementById("jump");
  const cache = new Map();
  let current = -1, wanted = 0;
  async function picture(k) {
    if (!cache.has(k)) {
      const bytes = Uint8Array.from(atob(frames[k - first].z), (c) => c.charCodeAt(0));
      const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
      cache.set(k, new Response(stream).text());
    }
    return cache.get(k);
  }
  function text(id, value) { document.getElementById(id).textContent = value; }
  async function show(k) {
    k = Math.max(first, Math.min(last, k));
    wanted = k;
    const f = frames[k - first], lit = story.highlight === k;
    slider.value = String(k);
    text("step", "step " + k + " of " + last);
    text("action", f.a === null ? "the start of the game (no action yet)"
      : "action " + k + ": " + (f.s === null ? "" : "seat " + f.s + " ") + f.w + "  [" + f.a + "]");
    text("rules", f.r.length ? "rules applied: " + f.r.join(", ") : "rules applied: none recorded");
    if (note) { note.hidden = !lit; }
    document.getElementById("caption").classList.toggle("highlighted", lit);
    board.classList.toggle("highlighted", lit);
    document.getElementById("prev").disabled = k === first;
    document.getElementById("next").disabled = k === last;
    const svg = await picture(k);
    if (wanted === k) { board.innerHTML = svg; current = k; board.dataset.step = String(k); }
  }
  document.getElementById("prev").addEventListener("click", () => show(wanted - 1));
  document.getElementById("next").addEventListener("click", () => show(wanted + 1));
  slider.addEventListener("input", () => show(Number(slider.value)));
  if (jump) { jump.addEventListener("click", () => show(story.highlight)); }
  document.addEventListener("keydown", (e) => {
    if (e.target === slider) { return; }
    if (e.key === "ArrowLeft") { show(wanted - 1); } else if (e.key === "ArrowRight") { show(wanted + 1); }
  });
  const m = /^#step=(\\d+)$/.exec(location.hash);
  show(m ? Number(m[1]) : (story.highlight === null ? first : story.highlight));
})();
"""


OPTIONAL_IDS = frozenset({"note", "jump"})
"""The elements only a page with a highlighted step has; the script checks for them. Every
other element the script looks up is on every page (tests/pictures/test_viewer.py checks it:
a plain log's page once stopped on the missing `#note` and drew no board)."""


def viewer_html(story: Story) -> str:
    """The story as one self-contained HTML page (no server, no network)."""
    if not story.frames:
        raise ValueError("a story has at least its first frame (the start of the game)")
    first = story.first
    last = first + len(story.frames) - 1
    if story.highlight is not None and not first <= story.highlight <= last:
        raise ValueError(f"the highlighted step {story.highlight} is not one of {first}..{last}")
    data = {
        "first": first,
        "highlight": story.highlight,
        "frames": [
            {"a": f.action, "w": f.words, "s": f.seat, "r": list(f.rules), "z": _packed(f.svg)}
            for f in story.frames
        ],
    }
    jump = ""
    note = ""
    if story.highlight is not None:
        jump = f'<button id="jump" type="button">go to step {story.highlight}</button>'
        more = (
            f'<details id="detail"><summary>what differs</summary><pre>{_e(story.detail)}</pre></details>'
            if story.detail
            else ""
        )
        note = f'<div id="note" hidden>step {story.highlight}: {_e(story.note)}{more}</div>'
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{_e(story.title)}</title><style>{_CSS}</style></head><body>\n"
        f"<h1>{_e(story.title)}</h1>\n"
        f'<p class="summary"><span id="kind">{_e(story.kind)}</span>: {_e(story.summary)}</p>\n'
        + (
            f'<p class="summary" id="window">Only steps {first} to {last} are drawn here; '
            "<code>village-rules view LOG</code> draws every step.</p>\n"
            if first
            else ""
        )
        + '<div class="controls">'
        '<button id="prev" type="button" title="previous step (left arrow)">&#9664; previous</button>'
        '<button id="next" type="button" title="next step (right arrow)">next &#9654;</button>'
        f'<input id="slider" type="range" min="{first}" max="{last}" value="{first}" step="1"'
        ' aria-label="step">'
        f'<span id="step">step {first} of {last}</span>{jump}</div>\n'
        f'<div id="caption"><div id="action"></div><div id="rules"></div>{note}</div>\n'
        '<div id="board"></div>\n'
        f'<script type="application/json" id="story">{_json_for_script(data)}</script>\n'
        f"<script>{_SCRIPT}</script>\n</body></html>\n"
    )


__all__ = ["Frame", "Story", "viewer_html"]
