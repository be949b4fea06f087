"""A command runs with the garbage collector's thresholds raised (few passes over the
modules and trees it keeps), and leaves them as it found them, however it ends."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner

from gatecheck.cli import cli
from gatecheck.cli.common import GatecheckGroup, few_collections


@pytest.fixture
def default_thresholds() -> Iterator[tuple[int, int, int]]:
    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        yield (700, 10, 10)
    finally:
        gc.set_threshold(*saved)


def _group(seen: list[tuple[int, int, int]], fail: bool) -> click.Group:
    @click.group(cls=GatecheckGroup)
    def group() -> None:
        pass

    @group.command()
    def probe() -> None:
        seen.append(gc.get_threshold())
        if fail:
            raise click.UsageError("bad")

    return group


@pytest.mark.parametrize(("fail", "exit_code"), [(False, 0), (True, 2)])
def test_a_command_runs_with_raised_thresholds_and_restores_them(
    default_thresholds: tuple[int, int, int], fail: bool, exit_code: int
) -> None:
    seen: list[tuple[int, int, int]] = []
    result = CliRunner().invoke(_group(seen, fail), ["probe"])
    assert result.exit_code == exit_code
    assert seen == [(50_000, 20, 100)]
    assert gc.get_threshold() == default_thresholds


def test_higher_thresholds_are_kept(default_thresholds: tuple[int, int, int]) -> None:
    gc.set_threshold(100_000, 50, 200)
    with few_collections():
        assert gc.get_threshold() == (100_000, 50, 200)
    assert gc.get_threshold() == (100_000, 50, 200)


def test_the_command_line_restores_them(default_thresholds: tuple[int, int, int]) -> None:
    assert CliRunner().invoke(cli, ["--version"]).exit_code == 0
    assert gc.get_threshold() == default_thresholds
