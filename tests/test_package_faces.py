"""Every package of ``src/citejudge`` has a face: a docstring that states its contract and ``__all__``.

And every module opens with a docstring whose first paragraph (its contract) fits in three lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "src" / "citejudge"


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def test_every_folder_of_modules_is_a_package() -> None:
    folders = {p.parent for p in PKG.rglob("*.py")}
    assert (
        sorted(str(f.relative_to(PKG)) for f in folders if not (f / "__init__.py").exists()) == []
    )


def test_every_package_states_its_contract_and_exports_all() -> None:
    faces = sorted(PKG.rglob("__init__.py"))
    assert len(faces) >= 10
    for face in faces:
        tree = _tree(face)
        assert ast.get_docstring(tree), f"{face}: no docstring"
        names = {
            t.id
            for n in tree.body
            if isinstance(n, ast.Assign | ast.AnnAssign)
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
            if isinstance(t, ast.Name)
        }
        names |= {  # "from module import __all__ as __all__": the face of a one-module package
            a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names
        }
        assert "__all__" in names, f"{face}: no __all__"


def test_every_module_opens_with_a_short_contract() -> None:
    for path in sorted(PKG.rglob("*.py")):
        doc = ast.get_docstring(_tree(path))
        assert doc, f"{path}: no module docstring"
        assert len(doc.split("\n\n")[0].splitlines()) <= 3, f"{path}: first paragraph over 3 lines"
