"""Where the files Arbiter reads at run time are, in a checkout and in an installed package.

A checkout keeps them in the repository's top-level folders (``templates/``, ``docs/schemas/``,
``compiler/rules/``) and builds into ``module_output/``. A wheel cannot install top-level folders
beside its packages, so ``pyproject.toml`` maps ``templates/`` to the package
``arbiter.compiler.templates`` and ``docs/schemas/`` to ``arbiter.compiler.schemas`` (package-dir): installed,
they sit inside the ``compiler`` package, and this module finds them there. The installed
package has no project folder to build into: ``arbiter build`` and ``arbiter serve`` then use
``./module_output`` (relative to where they run, like ``--data``'s ``./.arbiter-data``).
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent
"""The ``compiler`` package folder (its ``.py`` files are inputs of every build)."""
RULES_ROOT = PACKAGE_ROOT / "rules"
"""The bundled rule sources (package data in both layouts)."""


def checkout_root(package_root: Path = PACKAGE_ROOT) -> Path | None:
    """The repository folder when ``package_root`` is a checkout's ``compiler/`` (an editable
    install or the sources run directly), else None (an installed wheel)."""
    root = package_root.parent
    if (root / "pyproject.toml").is_file() and (root / "templates").is_dir():
        return root
    return None


def data_folder(
    packaged: str, checkout: tuple[str, ...], package_root: Path = PACKAGE_ROOT
) -> Path:
    """``compiler/<packaged>`` when installed; ``<checkout root>/<checkout…>`` in a checkout."""
    root = checkout_root(package_root)
    if root is not None:
        return root.joinpath(*checkout)
    return package_root / packaged


TEMPLATES_ROOT = data_folder("templates", ("templates",))
"""The jinja2 sources of everything the module ships."""
SCHEMAS_ROOT = data_folder("schemas", ("docs", "schemas"))
"""The server protocol's JSON Schemas, shipped as they are under ``schemas/`` for the client."""
_CHECKOUT = checkout_root()
DEFAULT_OUT = (_CHECKOUT / "module_output") if _CHECKOUT is not None else Path("module_output")
"""Where ``arbiter build`` puts the module folder ``arbiter`` by default."""
