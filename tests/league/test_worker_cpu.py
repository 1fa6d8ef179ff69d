"""A league worker's pool process keeps to one CPU, the Nth process on the Nth CPU, where the operator asks
(ARENA_WORKER_ONE_CPU; league/celery.py)."""

from __future__ import annotations

from types import SimpleNamespace

import billiard.process

from league import celery


def test_each_pool_process_asks_for_the_cpu_of_its_index(monkeypatch, settings):
    settings.ARENA_WORKER_ONE_CPU = True
    chosen = []
    monkeypatch.setattr("bots.sandbox.scheduling.pin_to_one_cpu", lambda index: chosen.append(index) or index)
    for index in (0, 1, 2):
        monkeypatch.setattr(billiard.process, "current_process", lambda index=index: SimpleNamespace(index=index))
        celery.keep_the_pool_process_on_one_cpu()
    assert chosen == [0, 1, 2]


def test_an_operator_can_leave_the_placing_to_the_kernel(monkeypatch, settings):
    def refuse(index: int) -> int:
        raise AssertionError("pinned though ARENA_WORKER_ONE_CPU is false")

    settings.ARENA_WORKER_ONE_CPU = False
    monkeypatch.setattr("bots.sandbox.scheduling.pin_to_one_cpu", refuse)
    celery.keep_the_pool_process_on_one_cpu()
