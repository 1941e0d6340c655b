"""Which tier runs a test's parameters. A test repeated for every lab, whose each run builds or runs that lab's
programs (seconds each, most of them the build of the lab's harness), runs for the first lab in the quick tier
(`./cml test`) and for every lab in the slow tier (`./cml test --slow`, which CI runs)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest


def first_lab_quick(labs: Sequence[str]) -> list:
    """`labs` as pytest parameters: the first in both tiers, the rest in the slow tier alone."""
    return [pytest.param(lab, id=lab, marks=[] if i == 0 else [pytest.mark.slow]) for i, lab in enumerate(labs)]
