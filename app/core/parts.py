"""A computation made of independent parts, which the job workers can share.

A view whose result combines parts computed independently of one another (the network map:
one part per seed and block of rows) describes them with :class:`Parts`; its ``compute_job``
is :meth:`Parts.compute`. Inside a web request, or in a job nobody helps with, the parts are
computed one after another here. Inside a background job (app/job_runner.py) the job's process
and helpers on the other workers take the parts one at a time and the job's process combines
them (app/shared_parts.py): a heavy map takes about its time divided by the free workers.

A job whose parts can be combined before they are all done (:attr:`Parts.partial`) is drawn
as it goes: its lead keeps the result of the parts done so far in the result cache
(:func:`partial_entry`) every :data:`PARTIAL_SECONDS` while it runs, and the page following the
job draws it (app/core/jobs.py, app/core/view.py) until the whole result replaces it.

This module knows nothing of stores or workers: the job runner installs how parts are shared
(:data:`SHARING`) for the time of a job.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from ..fingerprint import code_version

__all__ = ["PARTIAL_SECONDS", "SHARING", "Parts", "Report", "Sharing", "partial_entry"]

Controls = TypeVar("Controls")
Part = TypeVar("Part")
Result = TypeVar("Result")
Report = Callable[[float, str], None]

#: a job's result of the parts done so far is kept at most this often (s): each one is drawn
#: again whole by the pages following the job
PARTIAL_SECONDS = 2.0


@dataclass(frozen=True)
class Parts(Generic[Controls, Part, Result]):
    """How a result is made of parts: how many, each one, and the result from all of them."""

    #: how many parts the controls' result has (the same for the same physics values)
    count: Callable[[Controls], int]
    #: part ``index`` (0 … count − 1), telling ``report`` the fraction of the part done
    compute_part: Callable[[Controls, int, Report], Part]
    #: the result from every part, in order
    combine: Callable[[Controls, list[Part]], Result]
    #: the type a part is (what the result cache may hold of it: :mod:`app.codec`)
    part_type: Any
    #: the progress line for a fraction of the whole done
    progress_text: Callable[[Controls, float], str]
    #: the result of the parts done so far (index → part; at least one), drawn while the
    #: others are computed; None: the result is drawn only once it is whole
    partial: Callable[[Controls, Mapping[int, Part]], Result] | None = None
    #: the type a result is (what the result cache may hold of a partial one)
    result_type: Any = None

    def compute(self, controls: Controls, report: Report) -> Result:
        """The result, its parts shared among the workers where a job runner set that up
        (:data:`SHARING`), else computed here one after another."""
        sharing = SHARING.get()
        if sharing is not None:
            parts = sharing(self, controls, report)
        else:
            parts = self.one_after_another(controls, report)
        return self.combine(controls, parts)

    def one_after_another(self, controls: Controls, report: Report) -> list[Part]:
        count = self.count(controls)
        parts = []
        for index in range(count):

            def heard(fraction: float, text: str = "", index: int = index) -> None:
                whole = (index + min(max(fraction, 0.0), 1.0)) / count
                report(0.99 * whole, self.progress_text(controls, whole))

            parts.append(self.compute_part(controls, index, heard))
        report(1.0, "done")
        return parts


def partial_entry(view: str, setting: str) -> tuple[str, tuple]:
    """Where the result cache keeps the result of the parts done so far of a job's setting:
    (namespace, parameters). (The code's version too, as for the parts themselves.)"""
    return f"{view}-partial", (setting, code_version())


class Sharing(Protocol):
    """The parts of a job's result, computed by whoever shares them (app/shared_parts.py)."""

    def __call__(self, parts: Parts, controls: Any, report: Report) -> list: ...


#: how the running job shares its parts (None: no job, or nobody to share with)
SHARING: ContextVar[Sharing | None] = ContextVar("SHARING", default=None)
