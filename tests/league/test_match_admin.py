"""The staff play a failed ladder match again from the admin; other failed matches are left as they were."""

from __future__ import annotations

from django.urls import reverse

from league.arena.models import Match


def test_a_failed_ladder_match_is_played_again_from_the_admin(
    admin_client, alice, bob, make_version, sent, django_capture_on_commit_callbacks
):
    a, b = make_version(alice, "a"), make_version(bob, "b")
    failed = Match.objects.create_with_entries(
        [a, b], kind="ladder", game="face-to-face", games=2, seed="f", status="failed", attempts=4, failures=3,
        error="attempt 3: the match runner failed: RuntimeError()",
    )  # fmt: skip
    scrim = Match.objects.create_with_entries(
        [a, b], kind="scrim", game="face-to-face", games=2, seed="s", status="failed", error="x"
    )
    with django_capture_on_commit_callbacks(execute=True):  # queued on commit
        response = admin_client.post(
            reverse("admin:arena_match_changelist"),
            {"action": "play_again", "_selected_action": [failed.pk, scrim.pk]},
            follow=True,
        )
    assert "1 match queued to play again; 1 left as they were" in response.content.decode()
    failed.refresh_from_db()
    assert (failed.status, failed.attempts, failed.failures, failed.error) == ("queued", 0, 0, "")
    assert any(failed.pk in args for _, args in sent)  # sent to the workers
    scrim.refresh_from_db()
    assert scrim.status == "failed"
