"""Reading the fonts an exported HTML page embeds, for the tests of the report's and the class
view's HTML."""

from __future__ import annotations

import base64
import html
import re

_FACE = re.compile(r'@font-face \{ font-family: "([^"]+)";[^}]*src: url\("data:font/(\w+);base64,([A-Za-z0-9+/=]+)"\)')


def embedded_faces(page: str) -> dict[str, bytes]:
    return {m.group(1): base64.b64decode(m.group(3)) for m in _FACE.finditer(page)}


def visible_text(page: str) -> str:
    body = page.split("<body>", 1)[1]
    body = re.sub(r'<img [^>]*>', "", body)
    return html.unescape(re.sub(r"<[^>]+>", "", body))
