"""A fontconfig that sees no font at all: a minimal Linux image, WSL, a container.

``FONTCONFIG_FILE`` pointing at this configuration replaces the system's: its only font folder
is empty, so anything the child process draws comes from the fonts the wizard ships.
"""

from __future__ import annotations

from pathlib import Path


def empty_fontconfig(tmp_path: Path) -> dict[str, str]:
    """Environment variables for a child whose fontconfig knows no font folder but an empty one."""
    (tmp_path / "no-fonts").mkdir(exist_ok=True)
    conf = tmp_path / "fonts.conf"
    conf.write_text(f'<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
                    f'  <dir>{tmp_path / "no-fonts"}</dir>\n  <cachedir>{tmp_path / "fc-cache"}</cachedir>\n'
                    f'</fontconfig>\n', encoding="utf-8")
    return {"FONTCONFIG_FILE": str(conf)}
