"""Screenshots of the Xvfb screen: its framebuffer file (``Xvfb -fbdir``, XWD format) to PNG.

Standard library only (no ImageMagick, no Pillow on a fresh machine). Also says whether the
picture has enough different colours to be a drawn window rather than an empty screen.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path


def read_xwd(path: Path) -> tuple[int, int, bytes]:
    """(width, height, RGB bytes) of a 24/32-bit ZPixmap XWD file, as Xvfb writes it."""
    data = path.read_bytes()
    fields = struct.unpack_from(">25I", data, 0)
    header_size, _version, pix_format, _depth, width, height = fields[:6]
    byte_order, bits_per_pixel, bytes_per_line = fields[7], fields[11], fields[12]
    red_mask, green_mask, blue_mask = fields[14:17]
    ncolors = fields[19]
    if pix_format != 2 or bits_per_pixel != 32:
        raise ValueError(f"unsupported XWD: format {pix_format}, {bits_per_pixel} bits per pixel")
    start = header_size + 12 * ncolors
    order = "<" if byte_order == 0 else ">"

    def shift(mask: int) -> int:
        return (mask & -mask).bit_length() - 1

    rs, gs, bs = shift(red_mask), shift(green_mask), shift(blue_mask)
    out = bytearray(width * height * 3)
    for y in range(height):
        row = struct.unpack_from(f"{order}{width}I", data, start + y * bytes_per_line)
        base = y * width * 3
        out[base:base + width * 3] = bytes(
            b for px in row for b in ((px & red_mask) >> rs, (px & green_mask) >> gs, (px & blue_mask) >> bs))
    return width, height, bytes(out)


def write_png(path: Path, width: int, height: int, rgb: bytes) -> None:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    rows = b"".join(b"\0" + rgb[y * width * 3:(y + 1) * width * 3] for y in range(height))
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b""))
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(png)
    tmp.replace(path)


def distinct_colours(rgb: bytes) -> int:
    step = 7 if len(rgb) > 30000 else 1  # a sample of a screen; every pixel of a small picture
    return len({rgb[i:i + 3] for i in range(0, len(rgb) - 2, 3 * step)})


def save(framebuffer: Path, out_png: Path) -> int:
    """Write the screen to ``out_png``; returns its number of distinct colours (sampled)."""
    width, height, rgb = read_xwd(framebuffer)
    write_png(out_png, width, height, rgb)
    return distinct_colours(rgb)
