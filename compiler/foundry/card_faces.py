"""Card faces of the karmic deck, drawn from the deck data as SVG images the chat cards show.

One image per distinct face (value and hit mark) of the ruleset's ``cards``; nobody draws a
copy of the data by hand, so a house deck (``--rules`` overlay) gets its own faces. A face's
file name is what the card templates compute from a card's public fields (``value``, ``hit``):
``images/cards/karmic/<value>.svg`` or ``<value>-hit.svg`` (``-2-hit.svg``), never its id.
"""

from __future__ import annotations

from collections.abc import Mapping

from arbiter.compiler.model.loader import Ruleset

FACES_DIR = "images/cards/karmic"
"""Where the faces live inside the module."""

_WIDTH, _HEIGHT = 60, 84


def face_path(value: int, hit: bool) -> str:
    """The module path of one face's image (the templates build the same name)."""
    return f"{FACES_DIR}/{value}{'-hit' if hit else ''}.svg"


def _label(value: int) -> str:
    return f"+{value}" if value > 0 else ("\u2212" + str(-value) if value < 0 else "0")


def face_svg(value: int, hit: bool) -> bytes:
    """One face: the value large in the middle and in two corners; a hit card carries a star
    and a red border. Deterministic bytes for the same face."""
    label = _label(value)
    ink = "#7a1f1f" if value < 0 else "#1f3a5f"
    border = "#b03a2e" if hit else "#5b4a32"
    star = (
        '<path d="M30 60l3.1 6.4 7 .9-5.1 4.9 1.3 7-6.3-3.4-6.3 3.4 1.3-7-5.1-4.9 7-.9z" '
        'fill="#b03a2e"/>'
        if hit
        else ""
    )
    title = f"{label}{' hit' if hit else ''}"
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{_HEIGHT}" '
        f'viewBox="0 0 {_WIDTH} {_HEIGHT}" role="img" aria-label="{title}">'
        f"<title>{title}</title>"
        f'<rect x="1.5" y="1.5" width="{_WIDTH - 3}" height="{_HEIGHT - 3}" rx="6" '
        f'fill="#fbf6ea" stroke="{border}" stroke-width="{3 if hit else 2}"/>'
        f'<rect x="6" y="6" width="{_WIDTH - 12}" height="{_HEIGHT - 12}" rx="3" fill="none" '
        f'stroke="{border}" stroke-opacity=".35"/>'
        f'<text x="9" y="17" font-family="Georgia,serif" font-size="10" fill="{ink}">{label}</text>'
        f'<text x="30" y="{46 if hit else 52}" text-anchor="middle" font-family="Georgia,serif" '
        f'font-size="24" font-weight="bold" fill="{ink}">{label}</text>'
        f"{star}"
        "</svg>\n"
    )
    return svg.encode("utf-8")


def card_faces(rulesets: Mapping[str, Ruleset]) -> dict[str, bytes]:
    """Module path → SVG bytes for every face of the karmic deck (none without that ruleset)."""
    karmic = rulesets.get("karmic")
    if karmic is None:
        return {}
    cards = getattr(karmic.model, "cards", [])
    faces = sorted({(int(c.value), bool(c.hit)) for c in cards})
    return {face_path(v, h): face_svg(v, h) for v, h in faces}
