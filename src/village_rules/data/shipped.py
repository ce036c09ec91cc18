"""Where the files that ship inside the package are: the one lookup for package data.

The edition data files, the proof catalogue's stored results (`village_rules/proofs/witnesses/`
and `village_rules/proofs/regressions/`) and the divergence witnesses
(`village_rules/readings/witnesses/`) are package data, so a wheel and an sdist find them in
the same place, from any working directory. `importlib.resources` resolves the folder; the
library reads it as a `Path`, which every installed (non-zipped) package has.

The proof results live at the top of the repository (`proofs/`, issue 41) and are data
packages of their own (`village_rules.proofs.witnesses`, mapped to `proofs/witnesses` by
setup.py): an installed wheel has them inside the package like any other folder, and an
editable install finds them where its import hook maps the package, the clone's `proofs/`.
"""

from __future__ import annotations

import importlib.util
from importlib import resources
from pathlib import Path

from village_rules.errors import InternalError


def shipped_folder(package: str, name: str) -> Path:
    """The folder `name` shipped inside `package` (e.g. "village_rules.proofs", "witnesses").

    The folder inside the package comes first (a wheel, or data kept under src/); else the
    data package `package.name` wherever the install maps it (an editable install of a clone:
    `proofs/witnesses`). Raises `InternalError` naming the folder when neither is there, as a
    wheel built without its package data would."""
    folder = resources.files(package).joinpath(name)
    if isinstance(folder, Path) and folder.is_dir():
        return folder
    mapped = _data_package(f"{package}.{name}")
    if mapped is not None:
        return mapped
    raise InternalError(
        "village_rules.data.shipped",
        f"the installed package has no {package.replace('.', '/')}/{name}/ folder"
        " (package data missing from the build: reinstall village-rules)",
    )


def _data_package(dotted: str) -> Path | None:
    """The folder of the regular package `dotted` (one with an `__init__.py`), found without
    importing it, or None: no such package, a module, or a namespace package (not a mapped
    data package)."""
    try:
        spec = importlib.util.find_spec(dotted)
    except ModuleNotFoundError:  # a parent package is missing
        return None
    if spec is None or spec.origin is None or spec.submodule_search_locations is None:
        return None
    init = Path(spec.origin)
    return init.parent if init.name == "__init__.py" and init.is_file() else None
