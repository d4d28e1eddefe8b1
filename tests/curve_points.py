"""Hand-made points of a Training curve for the words' tests: a recorded step, and a point measured live."""

from lib.core.point import Frozen, Point
from lib.core.rows import Origin, Status
from lib.lessons.training.live_point import LivePoint
from lib.lessons.training.step_point import EpochBand, Profile, StepPoint


def step(
    median_s: float,
    iqr_s: float = 0.0,
    *,
    batch_size: int = 64,
    steps_per_epoch: int = 1,
    origin: Origin = Origin.RECORDED,
    profile: Profile = Profile(),
) -> StepPoint:
    """A recorded (or predicted) step at `batch_size`: its epoch `steps_per_epoch` steps of `median_s`."""
    band = EpochBand(None, None) if origin is Origin.PREDICTED else None
    return StepPoint(
        "mlp",
        Frozen({"batch_size": batch_size}),
        "cuda:0",
        "H0 (2026-11-21)",
        steps_per_epoch,
        median_s,
        iqr_s,
        20,
        median_s * steps_per_epoch,
        origin,
        "",
        band=band,
        profile=profile,
    )


def live(
    batch_size: int,
    median_s: float | None = None,
    epoch_s: float | None = None,
    *,
    status: Status = Status.OK,
    message: str = "",
) -> LivePoint:
    """A point of this server's live CPU curve at `batch_size` (refused or failed: no time)."""
    point = Point(
        "mlp",
        "cpu",
        Frozen({"batch_size": batch_size}),
        median_s=median_s,
        epoch_s=epoch_s,
        status=status,
        message=message,
    )
    return LivePoint(point).as_live_cpu()
