"""/api/tests/: starting a version test, the quota's 429 with Retry-After, who lists and reads a test, cancelling."""

from __future__ import annotations

import pytest

from league.arena.models import VersionTest


@pytest.fixture
def cee(alice, make_version):
    """Alice's `cee` with v1 and v2."""
    first = make_version(alice, "cee")
    return make_version(alice, "cee"), first


def test_start_read_list_and_cancel(api, alice, bob, cee, sent, django_capture_on_commit_callbacks):
    new, base = cee
    client = api(alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/api/tests/", {"version": new.pk, "base_version": base.pk, "elo1": 10, "max_games": 400}, format="json"
        )
    assert response.status_code == 201, response.content
    body = response.json()
    test = VersionTest.objects.get(pk=body["id"])
    assert response["Location"] == f"/api/tests/{test.pk}/" and ("release_tests", ()) in sent
    assert (body["version"]["id"], body["base_version"]["id"], body["status"], body["public"]) == (
        new.pk,
        base.pk,
        "queued",
        False,
    )
    sprt = body["sprt"]
    assert (sprt["elo0"], sprt["elo1"], sprt["elo_model"], sprt["verdict"], sprt["pentanomial"]) == (
        0.0,
        10.0,
        "normalized",
        None,
        [0, 0, 0, 0, 0],
    )
    assert body["sentence"] == "v2 against v1: no games played yet" and body["page"] == f"/tests/{test.pk}/"
    # Private: Bob neither reads, lists nor cancels it; anonymous readers see only public tests.
    assert api(bob).get(f"/api/tests/{test.pk}/").status_code == 404
    assert api(bob).post(f"/api/tests/{test.pk}/cancel/").status_code == 404
    assert api(bob).get("/api/tests/").json()["results"] == []
    assert api().post("/api/tests/", {"version": new.pk, "base_version": base.pk}).status_code == 401
    VersionTest.objects.filter(pk=test.pk).update(public=True)
    assert [t["id"] for t in api().get("/api/tests/").json()["results"]] == [test.pk]
    assert api(bob).post(f"/api/tests/{test.pk}/cancel/").status_code == 404
    cancelled = client.post(f"/api/tests/{test.pk}/cancel/")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"


def test_refusals_and_the_quota(api, alice, bob, cee, settings):
    new, base = cee
    client = api(alice)
    bounds = client.post(
        "/api/tests/", {"version": new.pk, "base_version": base.pk, "elo0": 5, "elo1": 0}, format="json"
    )
    assert bounds.status_code == 400 and bounds.json()["error"]["message"].startswith("elo0 must be below elo1")
    missing = client.post("/api/tests/", {"version": new.pk, "base_version": 99999}, format="json")
    assert missing.json()["error"]["fields"] == {"base_version": ["there is no version 99999"]}
    theirs = api(bob).post("/api/tests/", {"version": new.pk, "base_version": base.pk}, format="json")
    assert theirs.status_code == 403
    settings.ARENA_TESTS_AT_ONCE = 1
    assert client.post("/api/tests/", {"version": new.pk, "base_version": base.pk}, format="json").status_code == 201
    over = client.post("/api/tests/", {"version": new.pk, "base_version": base.pk}, format="json")
    assert over.status_code == 429 and over.json()["error"]["code"] == "quota_exceeded"
    assert over.json()["error"]["message"].startswith("you may run 1 test at once and have 1 running")
    assert 0 < int(over["Retry-After"]) <= 60
