"""How a skill's engine-decided state is shown: one visual category, a colour, an icon, plain words.

The categories only read what core decided (SkillState, diagnostics, the listing entry); they
decide nothing themselves.
"""
from __future__ import annotations

import enum
from functools import lru_cache

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPainterPath, QPen, QPixmap

from skillmanager.core.glossary import BADGE_LEGEND
from skillmanager.core.layers.listing_outcome import ListingOutcome, Outcome
from skillmanager.core.model import Invoker, Listed, Skill
from skillmanager.gui.plural import counted


class Visual(enum.Enum):
    ACTIVE = "active"
    SHORTENED = "shortened"  # listed, but the budget or the per-entry limit cut its description
    NAME_ONLY = "name-only"
    HIDDEN = "hidden"
    BLOCKED = "blocked"
    OFF = "off"
    SHADOWED = "shadowed"
    CONDITIONAL = "conditional"
    INVALID = "invalid"

    @property
    def label(self) -> str:
        return _LABELS[self]


_LABELS = {  # one short word each (docs/glossary.md)
    Visual.ACTIVE: "Listed",
    Visual.SHORTENED: "Shortened",
    Visual.NAME_ONLY: "Name only",
    Visual.HIDDEN: "Hidden",
    Visual.BLOCKED: "Blocked",
    Visual.OFF: "Off",
    Visual.SHADOWED: "Shadowed",
    Visual.CONDITIONAL: "Waiting",
    Visual.INVALID: "Error",
}

# Text colours per palette, each at least 4.5:1 (WCAG AA) on that palette's base and alternate-row
# colours, plain or under the review tint (tests/test_gui_app.py computes it). Icons use the light set: their glyph is white.
_COLOURS = {
    Visual.ACTIVE: "#186d34",
    Visual.SHORTENED: "#845600",
    Visual.NAME_ONLY: "#2a60ac",
    Visual.HIDDEN: "#5d6168",
    Visual.BLOCKED: "#b3261e",
    Visual.OFF: "#565b66",
    Visual.SHADOWED: "#775a2f",
    Visual.CONDITIONAL: "#845600",
    Visual.INVALID: "#ad1457",
}
_DARK_COLOURS = {
    Visual.ACTIVE: "#6fd38f",
    Visual.SHORTENED: "#f0b94a",
    Visual.NAME_ONLY: "#8fb8f5",
    Visual.HIDDEN: "#b4b8c0",
    Visual.BLOCKED: "#ff8a80",
    Visual.OFF: "#b0b5bf",
    Visual.SHADOWED: "#d9b98a",
    Visual.CONDITIONAL: "#f0b94a",
    Visual.INVALID: "#f48fb1",
}

_GLYPHS = {
    Visual.ACTIVE: "✓",
    Visual.SHORTENED: "✂",
    Visual.NAME_ONLY: "N",
    Visual.HIDDEN: "–",
    Visual.BLOCKED: "×",
    Visual.OFF: "○",
    Visual.SHADOWED: "↓",
    Visual.CONDITIONAL: "…",
    Visual.INVALID: "!",
}


def is_deny_blocked(skill: Skill) -> bool:
    return skill.state.deny_decision is not None


def visual_state(skill: Skill, entry=None, outcome: ListingOutcome | None = None) -> Visual:
    """`outcome`: core's ListingOutcome (what the start-up listing carries after the budget)."""
    state = skill.state
    if skill.has_errors and not _in_play(skill):
        return Visual.INVALID  # Claude Code neither lists nor runs it: the error is the whole story
    if not state.is_winner:
        return Visual.SHADOWED
    if state.conditional and not state.active:
        return Visual.CONDITIONAL
    if is_deny_blocked(skill):
        return Visual.BLOCKED
    if state.invocable_by is Invoker.NONE:
        return Visual.OFF  # e.g. skillOverrides "off": neither listed nor callable, no deny rule involved
    if state.listed is Listed.NO:
        return Visual.HIDDEN
    if state.listed is Listed.NAME_ONLY or bool(getattr(entry, "name_only", False)):
        return Visual.NAME_ONLY
    kind = outcome.outcome if outcome is not None else None
    if kind is Outcome.NAME_ONLY:
        return Visual.NAME_ONLY
    if kind is Outcome.SHORTENED:
        return Visual.SHORTENED
    return Visual.ACTIVE


def _in_play(skill: Skill) -> bool:
    """Claude Code still uses a skill whose front matter failed to parse (it falls back to the body):
    its state is what Claude sees; the error shows as a badge in the Checks column."""
    state = skill.state
    return state.listed is not Listed.NO or state.invocable_by is not Invoker.NONE


def is_dark(palette=None) -> bool:
    from PySide6.QtGui import QGuiApplication, QPalette

    palette = palette or QGuiApplication.palette()
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


def colour(visual: Visual, dark: bool | None = None) -> QColor:
    """The state's text colour for the palette in use (`dark` None: the application's palette)."""
    if dark is None:
        dark = is_dark()
    return QColor((_DARK_COLOURS if dark else _COLOURS)[visual])


def contrast_ratio(a: QColor, b: QColor) -> float:
    """WCAG 2 contrast ratio of two colours."""
    def luminance(c: QColor) -> float:
        def channel(v: float) -> float:
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
        return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF())
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _glyph_icon(fill: QColor, glyph: str, draw_shape, glyph_scale: float, glyph_top: float = 0.0) -> QIcon:
    """A filled shape with a white glyph, drawn at three sizes so it stays crisp on high-DPI screens."""
    result = QIcon()
    for size in (16, 32, 48):
        pixmap = QPixmap(size, size)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        # a darker rim keeps the shape distinct on a selected (highlight-coloured) row and on dark palettes
        painter.setPen(QPen(fill.darker(170), max(1.0, size / 16)))
        painter.setBrush(fill)
        draw_shape(painter, size)
        painter.setPen(QPen(QColor("white")))
        font = QFont()
        font.setBold(True)
        font.setPixelSize(int(size * glyph_scale))
        painter.setFont(font)
        top = size * glyph_top
        painter.drawText(QRectF(0, top, size, size - top), Qt.AlignmentFlag.AlignCenter, glyph)
        painter.end()
        result.addPixmap(pixmap)
        # as drawn on a selected row too: the style's generated "selected" pixmap blends it into the highlight
        result.addPixmap(pixmap, QIcon.Mode.Selected)
    return result


def _circle(margin_ratio: float):
    def draw(painter: QPainter, size: int) -> None:
        margin = size * margin_ratio
        painter.drawEllipse(QRectF(margin, margin, size - 2 * margin, size - 2 * margin))
    return draw


def _triangle(painter: QPainter, size: int) -> None:
    margin = size * 0.06
    path_ = QPainterPath()
    path_.moveTo(size / 2, margin)
    path_.lineTo(size - margin, size - margin)
    path_.lineTo(margin, size - margin)
    path_.closeSubpath()
    painter.drawPath(path_)


@lru_cache(maxsize=None)
def icon(visual: Visual) -> QIcon:
    """A round state badge with a glyph."""
    return _glyph_icon(colour(visual, dark=False), _GLYPHS[visual], _circle(0.08), 0.62)


@lru_cache(maxsize=None)
def app_icon() -> QIcon:
    from skillmanager.core.resources import resource_path

    folder = resource_path("icons", "app")
    result = QIcon()
    for size in (16, 24, 32, 48, 64, 128, 256, 512):  # rendered PNGs: no SVG plugin needed
        png = folder / f"skillmanager-{size}.png"
        if png.exists():
            result.addFile(str(png))
    svg = folder / "skillmanager.svg"
    if svg.exists():
        result.addFile(str(svg))  # any other size, where Qt's SVG icon engine is available
    if not result.isNull():
        return result
    for size in (16, 32, 64, 128):
        pixmap = QPixmap(size, size)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        path_ = QPainterPath()
        path_.addRoundedRect(QRectF(0, 0, size, size), size * 0.2, size * 0.2)
        painter.fillPath(path_, QColor("#3a5bd5"))
        painter.setPen(QPen(QColor("white"), size * 0.08))
        painter.drawLine(QPointF(size * 0.25, size * 0.35), QPointF(size * 0.75, size * 0.35))
        painter.drawLine(QPointF(size * 0.25, size * 0.55), QPointF(size * 0.65, size * 0.55))
        painter.drawLine(QPointF(size * 0.25, size * 0.75), QPointF(size * 0.5, size * 0.75))
        painter.end()
        result.addPixmap(pixmap)
        # as drawn on a selected row too: the style's generated "selected" pixmap blends it into the highlight
        result.addPixmap(pixmap, QIcon.Mode.Selected)
    return result



# --- audit / lint badges (the level is decided by core.skill_checks) ------------------------------
_BADGE_COLOURS = {"danger": "#d0453b", "error": "#ad1457", "warning": "#d69a1c", "note": "#3a7bd5"}
_BADGE_GLYPHS = {"danger": "!", "error": "×", "warning": "!", "note": "i"}
BADGE_WORDS = {level: words for level, (words, _sentence) in BADGE_LEGEND.items()}  # core/glossary.py


def badge_colour(level: str) -> QColor:
    return QColor(_BADGE_COLOURS.get(level, "#8a8f98"))


_BADGE_TEXT = {"danger": Visual.BLOCKED, "error": Visual.INVALID, "warning": Visual.SHORTENED, "note": Visual.NAME_ONLY}


def badge_text_colour(level: str, dark: bool | None = None) -> QColor:
    """The finding count beside a badge: a text colour of the same hue that reaches 4.5:1 on the palette
    (the icon's own fill is too light for text)."""
    return colour(_BADGE_TEXT.get(level, Visual.OFF), dark)


REVIEW_TINT = (208, 69, 59, 32)  # RGBA of the row background of a skill that needs review


@lru_cache(maxsize=None)
def badge_icon(level: str) -> QIcon:
    """A shield-like triangle (danger, warning), a round "×" (error) or "i" (note), readable on both palettes."""
    glyph = _BADGE_GLYPHS.get(level, "?")
    if level in ("note", "error"):
        return _glyph_icon(badge_colour(level), glyph, _circle(0.06), 0.6)
    return _glyph_icon(badge_colour(level), glyph, _triangle, 0.6, glyph_top=0.12)


def badge_tooltip(checks) -> str:
    head = f"{BADGE_WORDS.get(checks.badge, '')}: {counted(checks.count, 'finding')}"
    return "\n".join([head] + [f"• {line}" for line in checks.summary_lines()])
