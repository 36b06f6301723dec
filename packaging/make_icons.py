"""Render the app icon SVG into PNGs, a Windows .ico and a macOS .icns (maintainers only; outputs are committed).

`python packaging/make_icons.py` reads resources/icons/app/skillmanager.svg and writes, next to it,
skillmanager-<size>.png (16…512), skillmanager.ico and skillmanager.icns. Rendering uses Qt's
QSvgRenderer (PySide6 is already a dependency); the .ico and .icns containers are written here by hand
(both simply wrap PNG streams), so no image library is needed.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

ICON_DIR = Path(__file__).resolve().parent.parent / "resources" / "icons" / "app"
SVG = ICON_DIR / "skillmanager.svg"
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# ICNS element types that hold PNG data, by pixel size (Apple "Icon Services" types; @2x variants included).
ICNS_TYPES = (
    (b"icp4", 16), (b"icp5", 32), (b"ic11", 32), (b"icp6", 64), (b"ic12", 64),
    (b"ic07", 128), (b"ic08", 256), (b"ic13", 256), (b"ic09", 512), (b"ic14", 512), (b"ic10", 1024),
)


def render_png(svg: Path, size: int) -> bytes:
    """The SVG rendered at size×size with antialiasing, as PNG bytes."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    if QGuiApplication.instance() is None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        render_png.app = QGuiApplication(sys.argv[:1])  # keep a reference for the process lifetime
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"invalid SVG: {svg}")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """A .ico whose entries are PNG streams (supported since Windows Vista)."""
    header = struct.pack("<HHH", 0, 1, len(pngs))
    offset = 6 + 16 * len(pngs)
    entries, blobs = b"", b""
    for size, png in sorted(pngs.items()):
        dim = 0 if size >= 256 else size  # 0 means 256 in the directory entry
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(png), offset)
        blobs += png
        offset += len(png)
    return header + entries + blobs


def icns_bytes(pngs: dict[int, bytes]) -> bytes:
    """An .icns made of PNG elements: 'icns' + total length, then (type, length, data) per element."""
    body = b""
    for kind, size in ICNS_TYPES:
        png = pngs[size]
        body += kind + struct.pack(">I", 8 + len(png)) + png
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def main() -> int:
    pngs = {size: render_png(SVG, size) for size in sorted(set(PNG_SIZES) | {1024})}
    for size in PNG_SIZES:
        (ICON_DIR / f"skillmanager-{size}.png").write_bytes(pngs[size])
    (ICON_DIR / "skillmanager.ico").write_bytes(ico_bytes({s: pngs[s] for s in ICO_SIZES}))
    (ICON_DIR / "skillmanager.icns").write_bytes(icns_bytes(pngs))
    print(f"wrote {len(PNG_SIZES)} PNGs, skillmanager.ico and skillmanager.icns into {ICON_DIR}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
