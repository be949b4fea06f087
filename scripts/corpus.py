"""The real-code corpus: a PyPI wheel downloaded once and unpacked into .cache/corpus/
(git-ignored). One helper for the tests (tests/conftest.py), the benchmark
(benchmarks/run.py) and the crash sweep (scripts/corpus_check.py)."""

from __future__ import annotations

import hashlib
import html.parser
import re
import shutil
import subprocess
import sys
import tarfile
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path, PurePosixPath

CORPUS = Path(__file__).resolve().parent.parent / ".cache" / "corpus"
# The package index's simple pages (PEP 503), for a release published as an sdist only.
SIMPLE_INDEX = "https://pypi.org/simple"


class CorpusUnavailable(Exception):
    """The wheel could not be downloaded (the registry unreachable, no such version)."""


def fetch(requirement: str, *, only_python: bool = False, timeout: float = 1800) -> Path:
    """The unpacked wheel of `name==version`, downloaded and unpacked once. With
    `only_python`, only its .py files are unpacked (a wheel can be half a gigabyte of
    compiled kernels; the analysis reads Python only)."""
    name, _, version = requirement.partition("==")
    target = CORPUS / f"{name}-{version}"
    if (target / ".complete").exists():
        return target
    CORPUS.mkdir(parents=True, exist_ok=True)
    pattern = f"{name.replace('-', '_')}-{version}-*.whl"
    wheels = sorted(CORPUS.glob(pattern))
    sdists = sorted(CORPUS.glob(_sdist_name(name, version)))
    if not wheels and not sdists:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
        command += ["-q", requirement, "-d", str(CORPUS)]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as err:
            raise CorpusUnavailable(f"cannot download {requirement}: timed out") from err
        wheels = sorted(CORPUS.glob(pattern))
        if done.returncode != 0 or not wheels:
            detail = done.stderr.strip()[-200:] or f"no wheel matching {pattern}"
            if "No matching distribution" not in detail:
                raise CorpusUnavailable(f"cannot download {requirement}: {detail}")
            # Published as an sdist only (FlashInfer before 0.5): pip would build it to
            # read its metadata; the archive is fetched from the index instead.
            sdists = [_download_sdist(name, version, timeout)]
    if target.exists():
        shutil.rmtree(target)
    if wheels:
        with zipfile.ZipFile(wheels[0]) as archive:
            members = [m for m in archive.namelist() if m.endswith(".py")] if only_python else None
            archive.extractall(target, members)
    else:
        _unpack_sdist(sdists[0], target, only_python)
    (target / ".complete").touch()
    return target


def _sdist_name(name: str, version: str) -> str:
    """The file name of the sdist (PEP 625: the normalised name, underscores)."""
    return f"{re.sub(r'[-_.]+', '_', name).lower()}-{version}.tar.gz"


class _Links(html.parser.HTMLParser):
    """The `href`s of a simple page's anchors."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.links.append(href)


def _download_sdist(name: str, version: str, timeout: float) -> Path:
    """`name==version`'s sdist from the index's simple page into CORPUS, checked against
    the sha256 the page gives for it."""
    wanted = _sdist_name(name, version)
    page = f"{SIMPLE_INDEX}/{re.sub(r'[-_.]+', '-', name).lower()}/"
    try:
        with urllib.request.urlopen(page, timeout=timeout) as response:
            parser = _Links()
            parser.feed(response.read().decode("utf-8", "replace"))
        found = [
            urllib.parse.urljoin(page, href)
            for href in parser.links
            if PurePosixPath(urllib.parse.urlparse(href).path).name.lower() == wanted
        ]
        if not found:
            raise CorpusUnavailable(f"cannot download {name}=={version}: no wheel, no {wanted}")
        url, _, fragment = found[0].partition("#")
        with urllib.request.urlopen(url, timeout=timeout) as response:
            data = response.read()
    except OSError as err:
        raise CorpusUnavailable(f"cannot download {name}=={version}: {err}") from err
    algorithm, _, digest = fragment.partition("=")
    if algorithm == "sha256" and hashlib.sha256(data).hexdigest() != digest:
        raise CorpusUnavailable(f"cannot download {name}=={version}: {wanted} fails its sha256")
    path = CORPUS / wanted
    partial = path.with_suffix(".part")
    partial.write_bytes(data)
    partial.replace(path)
    return path


def _unpack_sdist(archive_path: Path, target: Path, only_python: bool) -> None:
    """The sdist's regular files (its `.py` files with `only_python`) under `target`,
    without the archive's top folder (`name-version/`), so that paths read as in the
    wheels (`flashinfer/...`). A member whose path would leave `target` is skipped."""
    with tarfile.open(archive_path, "r:gz") as archive:
        for member in archive:
            parts = PurePosixPath(member.name).parts[1:]
            if not member.isfile() or not parts or ".." in parts:
                continue
            if only_python and not parts[-1].endswith(".py"):
                continue
            out = target.joinpath(*parts)
            out.parent.mkdir(parents=True, exist_ok=True)
            source = archive.extractfile(member)
            if source is not None:
                out.write_bytes(source.read())
