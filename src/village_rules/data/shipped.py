"""Where the files that ship inside the package are: the one lookup for package data.

The edition data files, the proof witnesses (`village_rules/proofs/witnesses/`) and the
divergence witnesses (`village_rules/readings/witnesses/`) are package data, so an
editable install, a wheel and an sdist find them in the same place, from any working
directory. `importlib.resources` resolves the folder; the library reads it as a `Path`,
which every installed (non-zipped) package has.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from village_rules.errors import InternalError


def shipped_folder(package: str, name: str) -> Path:
    """The folder `name` shipped inside `package` (e.g. "village_rules.proofs", "witnesses").

    Raises `InternalError` naming the folder when the installed package lacks it, as a
    wheel built without its package data would."""
    folder = resources.files(package).joinpath(name)
    if not isinstance(folder, Path) or not folder.is_dir():
        raise InternalError(
            "village_rules.data.shipped",
            f"the installed package has no {package.replace('.', '/')}/{name}/ folder"
            " (package data missing from the build: reinstall village-rules)",
        )
    return folder
