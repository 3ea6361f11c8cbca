"""The VRAM page and the ``vram`` command reach the engine only through wizard.app.vram.

Both used to assemble the estimate from five core modules each; a decision made twice can
differ. Every import in the two faces (at the top or inside a function) is read from the source.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FACES = {"wizard/cli/vram.py": "wizard.cli", "wizard/ui/pages/vram_page.py": "wizard.ui"}
ALLOWED = ("wizard.app", "wizard.core.base")


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names.extend(a.name for a in node.names)
    return names


@pytest.mark.parametrize("face", sorted(FACES))
def test_the_face_imports_the_application_layer_and_nothing_else_of_the_engine(face):
    own = FACES[face]
    wizard = [n for n in _imports(REPO / face) if n == "wizard" or n.startswith("wizard.")]
    engine = [n for n in wizard if not n.startswith(own) and not n.startswith(ALLOWED)]
    assert not engine, engine
    assert any(n.startswith("wizard.app") for n in wizard)


def test_the_use_case_re_exports_what_the_faces_name():
    """Each ``vram_app.X`` / ``self.app.X`` the faces use is in wizard.app.vram's __all__."""
    from wizard.app import vram

    used = set()
    for face in FACES:
        for node in ast.walk(ast.parse((REPO / face).read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "vram_app":
                used.add(node.attr)
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
                    and node.value.attr == "app" and isinstance(node.value.value, ast.Name)):
                used.add(node.attr)
    assert used and used <= set(vram.__all__), used - set(vram.__all__)
