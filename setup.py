"""The optional compiled extensions; everything else is in pyproject.toml.

``service/parsing/_walk.pyx`` (the block walk), ``service/parsing/_markup.pyx`` (the page's
markup for the metadata, read off the same Lexbor structs), ``service/parsing/_budget.pyx`` (the page
budget's attribute-name scan, plain C over the bytes: no headers, no selectolax),
``service/features/_regions.pyx`` (the region words in ids and classes, plain C likewise) and
``service/features/_text_counts.pyx`` (each text leaf's character counts and events) and
``service/features/_texrex.pyx`` (the texrex features from those counts),
``service/features/_candidates.pyx`` (Readability's content scores spread up the tree),
``service/metadata/_page_counts.pyx`` (the page-type model's counts over blocks and elements). Built only
when ``EXTRACT_BUILD_WALK=1`` (``make build-ext``, the Docker builder stages), so a plain
``pip install -e .`` on a machine without a compiler installs and serves with the pure-Python walk.
The extension ``cimport``-s selectolax's shipped ``lexbor.pxd``; Lexbor's C headers that it names are
not in selectolax's wheel, so they are read from selectolax's source distribution of the *installed*
version (``pip download``, cached under ``build/``), and that version is compiled in: the service uses
the extension only beside the same selectolax (``service/parsing/lexbor.py``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

from setuptools import Extension, setup

BUILD_WALK = os.environ.get("EXTRACT_BUILD_WALK") == "1"
CACHE = Path(__file__).resolve().parent / "build" / "selectolax-sdist"


def lexbor_headers(version: str) -> Path:
    """Lexbor's source tree (its headers) from selectolax's sdist of ``version``, downloaded once."""
    source = CACHE / f"selectolax-{version}" / "lexbor" / "source"
    if source.is_dir():
        return source
    CACHE.mkdir(parents=True, exist_ok=True)
    download = [sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps"]
    subprocess.run([*download, f"selectolax=={version}", "--dest", str(CACHE)], check=True)
    with tarfile.open(CACHE / f"selectolax-{version}.tar.gz") as archive:
        prefix = f"selectolax-{version}/lexbor/source/"
        members = [m for m in archive.getmembers() if m.name.startswith(prefix) and m.name.endswith(".h")]
        archive.extractall(CACHE, members=members, filter="data")
    return source


def extensions() -> list[Extension]:
    from Cython.Build import cythonize  # noqa: PLC0415 - only needed when building the extension
    from selectolax import __version__ as selectolax_version  # noqa: PLC0415

    lexbor = {  # the walk and the markup reader read Lexbor's structs: its headers, the version they fit
        "include_dirs": [str(lexbor_headers(selectolax_version))],
        "define_macros": [("LEXBOR_STATIC", None), ("SELECTOLAX_VERSION", f'"{selectolax_version}"')],
    }
    walk = Extension("service.parsing._walk", ["service/parsing/_walk.pyx"], **lexbor)
    markup = Extension("service.parsing._markup", ["service/parsing/_markup.pyx"], **lexbor)
    budget = Extension("service.parsing._budget", ["service/parsing/_budget.pyx"])
    regions = Extension("service.features._regions", ["service/features/_regions.pyx"])
    text_counts = Extension("service.features._text_counts", ["service/features/_text_counts.pyx"])
    texrex = Extension("service.features._texrex", ["service/features/_texrex.pyx"])
    candidates = Extension("service.features._candidates", ["service/features/_candidates.pyx"])
    page_counts = Extension("service.metadata._page_counts", ["service/metadata/_page_counts.pyx"])
    extensions = [walk, markup, budget, regions, text_counts, texrex, candidates, page_counts]
    return cythonize(extensions, language_level=3, quiet=True)


setup(ext_modules=extensions() if BUILD_WALK else [])
