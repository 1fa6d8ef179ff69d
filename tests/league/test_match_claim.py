"""A match is claimed by exactly one worker; a dead worker's match is claimed again."""

from datetime import timedelta

from django.utils import timezone

from league.arena.models import Match

LEASE = timedelta(minutes=5)


def new_match():
    return Match.objects.create(kind="exhibition", game="face-to-face", games=2, seed="x")


def test_it_claims_a_queued_match_once(db):
    match = new_match()
    token = match.claim("host-a:1", LEASE)
    assert token is not None
    match.refresh_from_db()
    assert (match.status, match.claim_token, match.claimed_by, match.attempts) == ("running", token, "host-a:1", 1)
    assert Match.objects.get(pk=match.pk).claim("host-b:2", LEASE) is None
    match.refresh_from_db()
    assert match.claimed_by == "host-a:1"


def test_it_reclaims_a_match_whose_worker_stopped_beating(db):
    match = new_match()
    first = match.claim("host-a:1", LEASE)
    Match.objects.filter(pk=match.pk).update(heartbeat_at=timezone.now() - LEASE - timedelta(seconds=1))
    second = Match.objects.get(pk=match.pk).claim("host-b:2", LEASE)
    assert second is not None and second != first
    match.refresh_from_db()
    assert (match.claimed_by, match.attempts) == ("host-b:2", 2)
    # The presumed-dead worker can neither report progress nor give the match back any more.
    assert match.heartbeat(first, 1, LEASE) is False
    assert match.release(first, "boom", give_up=False) is False
    assert match.heartbeat(second, 1, LEASE) is True


def test_a_claim_past_its_lease_may_neither_beat_nor_store_though_nobody_took_it(db):
    match = new_match()
    token = match.claim("host-a:1", LEASE)
    assert match.heartbeat(token, 1, LEASE) is True
    Match.objects.filter(pk=match.pk).update(heartbeat_at=timezone.now() - LEASE - timedelta(seconds=1))  # frozen
    assert match.heartbeat(token, 2, LEASE) is False
    assert not match.held(token, LEASE).exists()
    assert Match.objects.get(pk=match.pk).claim_token == token  # nobody else claimed it yet


def test_it_never_claims_a_finished_match(db):
    match = new_match()
    Match.objects.filter(pk=match.pk).update(status=Match.Status.DONE)
    assert match.claim("host-a:1", LEASE) is None


def test_a_released_match_is_queued_again_or_failed_for_good(db):
    match = new_match()
    token = match.claim("host-a:1", LEASE)
    assert match.release(token, "runner broke", give_up=False)
    match.refresh_from_db()
    assert (match.status, match.claim_token, match.error) == ("queued", None, "runner broke")
    token = match.claim("host-a:1", LEASE)
    assert match.release(token, "runner broke again", give_up=True)
    match.refresh_from_db()
    assert match.status == "failed" and match.finished_at is not None


def test_a_match_held_by_a_dead_process_of_the_same_worker_is_taken_over_at_once(db):
    import subprocess
    import sys

    from league.arena.play import matches

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # a pool process killed: its pid is free
    match = new_match()
    assert match.claim(f"w1@host:{gone.pid}", LEASE) is not None  # its heartbeat is fresh
    match.refresh_from_db()
    assert matches.dead_claimant_here(match, "w2@host:1") == ""  # another node: only its lease tells
    assert Match.objects.get(pk=match.pk).claim("w2@host:1", LEASE) is None
    dead = matches.dead_claimant_here(match, "w1@host:1")
    assert dead == f"w1@host:{gone.pid}"
    assert Match.objects.get(pk=match.pk).claim("w1@host:1", LEASE, dead_claimant=dead) is not None
    match.refresh_from_db()  # now held by w1@host:1, and process 1 lives: its lease alone tells
    assert matches.dead_claimant_here(match, "w1@host:2") == ""


def test_a_new_pool_process_hands_back_what_dead_processes_of_its_node_held(db, monkeypatch):
    import os
    import subprocess
    import sys

    from league.arena import queue
    from league.arena.play import matches

    sent = []
    monkeypatch.setattr(queue, "play", lambda pk, kind, resent=False: sent.append((pk, resent)))
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    dead, alive, elsewhere = new_match(), new_match(), new_match()
    dead.claim(f"w1@host:{gone.pid}", LEASE)
    alive.claim(f"w1@host:{os.getpid()}", LEASE)
    elsewhere.claim(f"w2@host:{gone.pid}", LEASE)  # another node's: only its lease tells

    assert matches.hand_back_dead_here("w1@host:1") == 1
    assert sent == [(dead.pk, True)]
    dead.refresh_from_db()
    assert (dead.status, dead.claim_token, dead.attempts) == ("queued", None, 1)  # a silent run: still counted
    assert "is gone" in dead.error
    assert {m.status for m in Match.objects.exclude(pk=dead.pk)} == {"running"}
    assert matches.hand_back_dead_here("w1@host:1") == 0


def test_a_claim_whose_answer_was_lost_is_taken_again_by_its_own_process_at_once(db):
    from league.arena.play import matches

    match = new_match()
    assert match.claim("w1@host:7", LEASE) is not None  # committed, then the database went away before the answer
    match.refresh_from_db()
    assert matches.dead_claimant_here(match, "w1@host:7") == "w1@host:7"  # not playing it: the claim is an orphan
    matches._playing.add(match.pk)
    try:
        assert matches.dead_claimant_here(match, "w1@host:7") == ""  # playing it: its own live claim
    finally:
        matches._playing.discard(match.pk)
