"""An attribute a function stores on a local object and reads back later in it
(semantics/stored_attributes.py): lmdeploy's `hf_config.use_flash_mla =
flash_mla_available()` then `ModelConfig(use_flash_mla=hf_config.use_flash_mla)`. Only a
store in the function's own body, the only one of that attribute on that name, on a
name bound once; every other shape leaves the read unknown. Pure: in memory."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.admission import EVERY, assert_can_be_true

SOURCE = """\
import torch

def flash_mla_available():
    return torch.cuda.get_device_capability()[0] >= 9
"""

FROM_SM90 = frozenset(
    {"sm90", "sm100", "sm103", "sm110", "sm120", "sm121", "gfx90a", "gfx942", "gfx950"}
)

CASES = [
    pytest.param(
        "def build(cfg):\n    cfg.flag = flash_mla_available()\n    return cfg.flag\n",
        FROM_SM90,
        id="stored-on-a-parameter-then-read",
    ),
    pytest.param(
        "def build(cfg):\n    cfg.flag = flash_mla_available()\n    n = 1\n"
        "    if n:\n        return cfg.flag is True\n    return False\n",
        FROM_SM90,
        id="read-in-a-later-branch",
    ),
    pytest.param(
        "def build(make):\n    cfg = make()\n    cfg.flag = flash_mla_available()\n"
        "    return cfg.flag\n",
        FROM_SM90,
        id="on-a-local-bound-once",
    ),
    # Noops: the store may not have run, another may have, or the name changed.
    pytest.param(
        "def build(cfg, x):\n    if x:\n        cfg.flag = flash_mla_available()\n"
        "    return cfg.flag\n",
        EVERY,
        id="stored-under-an-if",
    ),
    pytest.param(
        "def build(cfg, x):\n    cfg.flag = flash_mla_available()\n    if x:\n"
        "        cfg.flag = True\n    return cfg.flag\n",
        EVERY,
        id="stored-twice",
    ),
    pytest.param(
        "def build(cfg, other):\n    cfg.flag = flash_mla_available()\n    cfg = other\n"
        "    return cfg.flag\n",
        EVERY,
        id="the-name-bound-again",
    ),
    pytest.param(
        "def build(cfg):\n    before = cfg.flag\n    cfg.flag = flash_mla_available()\n"
        "    return before\n",
        EVERY,
        id="read-before-the-store",
    ),
]


@pytest.mark.parametrize(("function", "expected"), CASES)
def test_an_attribute_stored_then_read(ruleset: RuleSet, function: str, expected: object) -> None:
    assert_can_be_true(ruleset, SOURCE + function, "build(x, y)", expected)
