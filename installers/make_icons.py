"""Render ``resources/icons/app.svg`` to the raster icons the installers need.

Why a script and not a build step: the Windows runner, the macOS runner and a student's
``pip install`` should not need an SVG toolchain, so the rendered files are committed next to
the SVG. Run this again after editing the SVG:

    python installers/make_icons.py

It writes ``app.png`` (256 px, the Linux desktop entry and the window icon) and ``app.ico``
(16-256 px, the Windows executables, the installer and the Apps & features entry). Qt's own
SVG renderer (QtSvg, part of PySide6-Essentials) draws the pixels; the ICO container is written
here because Qt's ICO writer stores one size per file.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

ICON_DIR = Path(__file__).resolve().parents[1] / "wizard" / "resources" / "icons"
ICO_SIZES = (16, 20, 24, 32, 40, 48, 64, 128, 256)
PNG_IN_ICO_FROM = 64  # larger entries are stored PNG-compressed (Windows Vista and later)


def render(svg: Path, size: int):
    """The SVG drawn into a transparent ``size`` x ``size`` QImage (ARGB32)."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: Qt cannot parse this SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    return image


def png_bytes(image) -> bytes:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buf, "PNG"):
        raise SystemExit("Qt could not encode a PNG")
    buf.close()
    return bytes(data.data())


def dib_bytes(image) -> bytes:
    """A 32-bit BMP entry as ICO wants it: header with doubled height, BGRA rows bottom-up, AND mask.

    Small sizes stay uncompressed because some older readers (and NSIS's icon replacement)
    only understand DIB entries.
    """
    size = image.width()
    header = struct.pack("<IiiHHIIiiII", 40, size, size * 2, 1, 32, 0, 0, 0, 0, 0, 0)
    rows = []
    mask_stride = ((size + 31) // 32) * 4
    mask_rows = []
    for y in range(size - 1, -1, -1):
        row = bytearray()
        mask = bytearray(mask_stride)
        for x in range(size):
            argb = image.pixel(x, y)
            a = (argb >> 24) & 0xFF
            row += bytes(((argb & 0xFF), (argb >> 8) & 0xFF, (argb >> 16) & 0xFF, a))
            if a == 0:
                mask[x // 8] |= 0x80 >> (x % 8)
        rows.append(bytes(row))
        mask_rows.append(bytes(mask))
    return header + b"".join(rows) + b"".join(mask_rows)


def ico_bytes(entries: list[tuple[int, bytes]]) -> bytes:
    """ICONDIR + ICONDIRENTRY list + image data (a size of 256 is written as 0)."""
    out = struct.pack("<HHH", 0, 1, len(entries))
    offset = 6 + 16 * len(entries)
    blobs = []
    for size, blob in entries:
        dim = 0 if size >= 256 else size
        out += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(blob), offset)
        offset += len(blob)
        blobs.append(blob)
    return out + b"".join(blobs)


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 - QPainter needs it
    svg = ICON_DIR / "app.svg"
    (ICON_DIR / "app.png").write_bytes(png_bytes(render(svg, 256)))
    entries = []
    for size in ICO_SIZES:
        image = render(svg, size)
        entries.append((size, png_bytes(image) if size >= PNG_IN_ICO_FROM else dib_bytes(image)))
    (ICON_DIR / "app.ico").write_bytes(ico_bytes(entries))
    print(f"wrote {ICON_DIR / 'app.png'} and {ICON_DIR / 'app.ico'} ({', '.join(map(str, ICO_SIZES))} px)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
