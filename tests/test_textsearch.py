"""holds_any answers `any(n in text for n in needles)` for every text, core or not."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from gatecheck.textsearch import FEW_WORDS, Words, common_core, holds_any
from tests.conftest import write_tree


@pytest.mark.parametrize(
    ("needles", "core"),
    [
        ((), ""),
        (("abc",), "abc"),
        (("enable_fusion_x", "fusion_x_backend"), "fusion_x"),
        (("--enable-x-fusion", "enable_x_fusion"), "enable"),
        (("abc", "xyz"), ""),
        (("", "abc"), ""),
        (("aaaa", "aa"), "aa"),
    ],
)
def test_common_core(needles: tuple[str, ...], core: str) -> None:
    assert common_core(needles) == core
    assert all(core in n for n in needles)


NEEDLE_SETS = [
    [],
    ["flag"],
    ["enable_flashinfer_fusion", "flashinfer_fusion_backend", "apply_flashinfer_fusion"],
    ["enable_flashinfer_fusion", "--enable-flashinfer-fusion"],
    ["abc", "xyz"],
    ["", "abcdefgh"],
    ["flashinfer", "flashinfer_x"],
]


@pytest.mark.parametrize("needles", NEEDLE_SETS)
def test_holds_any_is_any_in(needles: list[str]) -> None:
    rng = random.Random(len(needles))
    pieces = ["flashinfer", "_fusion", "enable", "-", "_", "apply", "backend", "--", "x"]
    pieces += ["abc", "xyz", "defgh", " ", "\n", "é"]
    pieces += [n for n in needles if n]
    holds = holds_any(needles)
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(10)))
        assert holds(text) is any(n in text for n in needles), (needles, text)


WORD_SETS = [
    [],
    ["is_sm90"],
    ["is_sm90", "is_sm90_supported", "sm90"],  # nested and overlapping words
    ["aa", "aaa"],  # a word overlapping itself: "aaaa" holds "aa" three times
    [f"name_{i}" for i in range(30)],  # past FEW_WORDS: the automaton
    ["is_sm90", "is_sm90_supported", "sm90", "aa", "aaa", "é_x"] + [f"w{i}" for i in range(10)],
]


def _spans(text: str, words: list[str]) -> list[tuple[int, int]]:
    return sorted(
        (at, at + len(w))
        for w in set(words)
        if w
        for at in range(len(text) - len(w) + 1)
        if text.startswith(w, at)
    )


@pytest.mark.parametrize("words", WORD_SETS)
def test_words_answer_as_substring_tests(words: list[str]) -> None:
    """Below FEW_WORDS one str.find per word, above it one automaton pass: the same
    answers as the plain tests, overlapping and nested occurrences included."""
    rng = random.Random(len(words))
    pieces = ["is_", "sm90", "_supported", "a", "aa", " ", "\n", "é", "_x", "name_", "1", "2"]
    pieces += [w for w in words if w]
    scanner = Words(words)
    assert scanner.words == tuple(sorted({w for w in words if w}))
    for _ in range(1500):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(12)))
        held = tuple(sorted({w for w in words if w and w in text}))
        assert scanner.held(text) == held, (words, text)
        assert scanner.holds_any(text) is bool(held), (words, text)
        assert scanner.spans(text) == _spans(text, words), (words, text)


def test_words_past_few_use_the_automaton() -> None:
    few = Words([f"w{i}" for i in range(FEW_WORDS)])
    many = Words([f"w{i}" for i in range(FEW_WORDS + 1)])
    assert few._automaton is None and many._automaton is not None


def test_a_search_within_an_earlier_one_reads_only_its_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text holding `apply_fusion` holds `fusion`: once the files holding `fusion` are
    known, a search for names that each contain it reads only those; a name that contains
    none of the earlier needles reads every file."""
    from gatecheck.loading.project import Project

    texts = {"a.py": "x = fusion\n", "b.py": "apply_fusion()\n", "c.py": "other()\n"}
    write_tree(tmp_path, texts)
    project = Project(sorted(tmp_path.glob("*.py")), [tmp_path])
    assert [p.name for p in project.files_mentioning(["fusion"])] == ["a.py", "b.py"]
    read: list[str] = []
    text_of = project.text_of
    monkeypatch.setattr(project, "text_of", lambda path: read.append(path.name) or text_of(path))
    assert [p.name for p in project.files_mentioning(["apply_fusion"])] == ["b.py"]
    assert read == ["a.py", "b.py"]
    read.clear()
    assert [p.name for p in project.files_mentioning(["apply_fusion", "other"])] == ["b.py", "c.py"]
    assert read == ["a.py", "b.py", "c.py"]


def test_needles_an_earlier_search_covers_are_looked_for_in_its_files_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A feature's flags were searched; its dashed CLI options contain none of them. A
    search for both asks the flags of the earlier search's files only and the dashed
    options of every file (with the core those share, not the shorter one of all four)."""
    import gatecheck.loading.project as project_module
    from gatecheck.loading.project import Project

    texts = {
        "a.py": "x = x_fusion\n",
        "b.py": "apply_x_fusion()\n",
        "c.py": "p.add_argument('--apply-x-fusion')\n",
        "d.py": "other()\n",
    }
    write_tree(tmp_path, texts)
    project = Project(sorted(tmp_path.glob("*.py")), [tmp_path])
    assert [p.name for p in project.files_mentioning(["x_fusion"])] == ["a.py", "b.py"]
    asked: list[tuple[tuple[str, ...], str]] = []
    real = project_module.holds_any

    def recording(needles: Iterable[str]) -> Callable[[str], bool]:
        holds, key = real(needles), tuple(sorted(needles))

        def recorded(text: str) -> bool:
            asked.append((key, text))
            return holds(text)

        return recorded

    monkeypatch.setattr(project_module, "holds_any", recording)
    found = project.files_mentioning(["apply_x_fusion", "--apply-x-fusion"])
    assert [p.name for p in found] == ["b.py", "c.py"]
    by_needles: dict[tuple[str, ...], set[str]] = {}
    for key, text in asked:
        by_needles.setdefault(key, set()).add(text)
    assert by_needles[("apply_x_fusion",)] <= {texts["a.py"], texts["b.py"]}
    assert by_needles[("--apply-x-fusion",)] == set(texts.values())


@pytest.mark.parametrize("seed", range(30))
def test_searches_after_earlier_ones_find_what_a_plain_scan_finds(
    tmp_path: Path, seed: int
) -> None:
    from gatecheck.loading.project import Project

    rng = random.Random(seed)
    alphabet = "ab_-"
    texts = {f"m{i}.py": "".join(rng.choice(alphabet) for _ in range(30)) for i in range(12)}
    write_tree(tmp_path, texts)
    project = Project(sorted(tmp_path.glob("*.py")), [tmp_path])
    for _ in range(6):
        needles = [
            "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 4)))
            for _ in range(rng.randint(1, 3))
        ]
        expected = [p.name for p in project.files if any(n in texts[p.name] for n in needles)]
        assert [p.name for p in project.files_mentioning(needles)] == expected, needles
