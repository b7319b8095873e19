"""In-tree extensions: an entry added to IF-World's own tree by adding its file(s) here and nothing else.

Every module in this folder is imported once, when a registry is first listed, and its ``register()`` called —
the same moment and the same function an outside package's ``ifworld.extensions`` entry point uses
(:mod:`ifworld.registry`). A module that fails to import or register is reported (``plugin_errors``: the
Settings page), never fatal. Data files beside a module (an expert's YAML) ship with
the package (``pyproject.toml``'s package data).

Why a scanned folder when the built-ins are imported by explicit lines: the built-ins' order is the order pages
and tables show, stated where the engine owns it; an added entry needs no place in that order (it comes after
the built-ins, by module name) and should not make its author edit an engine's file. The folder holds only what
whoever runs the server put in the package — a browser cannot add to it.
"""
