"""A bounded in-flight limit: past it, work is refused at once instead of queueing without end."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from service.runtime.errors import Overloaded


class AdmissionLimit:
    """Counts documents in flight in one event loop; admission beyond ``capacity`` raises :class:`Overloaded`.

    Not thread-safe on purpose: it is only touched from the event loop, where
    there is no await between the check and the increment.
    """

    def __init__(self, capacity: int, retry_after_s: float, unit: str = "documents") -> None:
        self.capacity = capacity
        self.retry_after_s = retry_after_s
        self.unit = unit  # what is counted, for the refusal's message
        self.in_flight = 0

    @contextmanager
    def admit(self, weight: int = 1) -> Iterator[None]:
        """Hold ``weight`` slots for the duration of the block."""
        if self.in_flight + weight > self.capacity:
            raise Overloaded(self.refusal(), self.retry_after_s)
        self.in_flight += weight
        try:
            yield
        finally:
            self.in_flight -= weight

    def full(self) -> bool:
        """Whether not even one more document would be admitted now."""
        return self.in_flight >= self.capacity

    def refusal(self) -> str:
        """Why work is refused now, for the client."""
        return f"{self.in_flight} {self.unit} in flight, limit {self.capacity}; retry in {self.retry_after_s:g} s"
