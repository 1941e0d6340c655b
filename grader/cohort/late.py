"""A late policy: how much of a run's score a submission keeps when it came in after the due date.

Days late are counted in started days (a minute late is one day). The penalty is a percent of the score per
day, and past an optional limit nothing is kept. The run's score is scaled; each lab and check keeps the
points it earned, so a reader sees what the work was worth and what lateness took."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from datetime import UTC, datetime

DAY_S = 86400.0


@dataclass
class LatePolicy:
    percent_per_day: float = 0.0  # of the score, per started day late
    limit_days: float | None = None  # more days late than this: nothing is kept

    def __post_init__(self) -> None:
        if not 0 <= self.percent_per_day <= 100:
            raise ValueError(f"late penalty {self.percent_per_day:g}%: give a percent from 0 to 100")
        if self.limit_days is not None and self.limit_days < 0:
            raise ValueError(f"late limit {self.limit_days:g} days: give 0 or more")

    def kept(self, days_late: int) -> float:
        """The fraction of the score kept after `days_late` started days."""
        if days_late <= 0:
            return 1.0
        if self.limit_days is not None and days_late > self.limit_days:
            return 0.0
        return max(0.0, 1.0 - days_late * self.percent_per_day / 100)


def parse_time(text: str) -> datetime:
    """An ISO 8601 time ('2026-03-01T23:59:00-05:00', or a date); one without a zone is taken as UTC."""
    moment = datetime.fromisoformat(text.strip())
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def days_late(submitted: datetime, due: datetime) -> int:
    """Started days after the due date; 0 when on time."""
    late_s = (submitted - due).total_seconds()
    return math.ceil(late_s / DAY_S) if late_s > 0 else 0


def apply(run: dict, submitted: datetime | None, due: datetime | None, policy: LatePolicy | None) -> dict:
    """The run with its submission time, and, past the due date, its lateness and scaled score ('late')."""
    if submitted is not None:
        run["submitted_at"] = submitted.isoformat()
    if submitted is None or due is None:
        return run
    days = days_late(submitted, due)
    if days == 0:
        return run
    kept = policy.kept(days) if policy else 1.0
    before = run.get("score", 0.0)
    run["late"] = {
        "due": due.isoformat(),
        "days": days,
        "kept": kept,
        "score_before": before,
        "policy": asdict(policy) if policy else None,
    }
    run["score"] = before * kept
    note = f"Submitted {days} day{'s' if days != 1 else ''} after the due date ({due.isoformat()})"
    note += f": {100 * kept:g}% of the score kept, {before:.1f} -> {before * kept:.1f}." if policy else "."
    run["notes"] = [*run.get("notes", []), note]
    return run
