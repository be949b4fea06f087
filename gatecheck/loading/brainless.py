"""astroid imported without its brains. gatecheck builds trees with astroid and reads them
with its own evaluator: it never asks astroid to infer, and its builder applies no
transforms (trees.ProjectBuilder), so the brains (astroid's models of numpy, attrs, six,
the standard library, ...) change no answer. Registering them is a third of importing
astroid: ~60 modules, and numpy's asks `importlib.metadata` for a version, which pulls in
`email`, `zipfile`, `socket` and `tempfile` (about 30 ms of a cold `check`'s 0.4 s).

astroid registers them when its package is first imported (`astroid/__init__.py` takes
`MANAGER` from `astroid.astroid_manager`, the module that makes the manager and registers
every brain). `skip_brains()` puts a module of that name in its place whose `MANAGER` is
the same borg manager, made on first use, with no brain registered. Only the command line
calls it, before anything imports astroid: the process is gatecheck's, and a library
user's astroid is left as it is. Imports nothing but `sys` and `types`."""

from __future__ import annotations

import sys
import types

MANAGER_MODULE = "astroid.astroid_manager"


def skip_brains() -> bool:
    """Install the brainless manager module; False (and nothing done) when astroid or its
    manager module is already imported."""
    if "astroid" in sys.modules or MANAGER_MODULE in sys.modules:
        return False
    module = types.ModuleType(MANAGER_MODULE, __doc__)

    def manager(name: str) -> object:
        if name != "MANAGER":
            raise AttributeError(f"module {MANAGER_MODULE!r} has no attribute {name!r}")
        from astroid.manager import AstroidManager

        made = AstroidManager()
        module.MANAGER = made  # type: ignore[attr-defined]
        return made

    module.__getattr__ = manager  # type: ignore[method-assign]
    sys.modules[MANAGER_MODULE] = module
    return True
