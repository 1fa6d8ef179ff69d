"""/api/notifications/: your notices newest first (filters unread and kind), marking them read or unread, all at
once, and your preferences; nobody else's, and nothing for anonymous callers."""

from __future__ import annotations

import pytest

from league.arena import notifications
from league.arena.models import NotificationSetting

Kind = notifications.Kind


@pytest.fixture
def told(alice, bob):
    failed = notifications.notify(alice, Kind.VERSION_FAILED, "ace v2 failed its validation: crash", "/bots/1/")
    scrim = notifications.notify(alice, Kind.SCRIM_FINISHED, "Scrim finished: alice/ace beat bob/bee 6–4", "/scrims/3/")
    theirs = notifications.notify(bob, Kind.SCRIM_FINISHED, "bob's own")
    return failed, scrim, theirs


def test_anonymous_callers_are_refused(api, told):
    for path in ("/api/notifications/", f"/api/notifications/{told[0].pk}/", "/api/notifications/preferences/"):
        assert api().get(path).status_code == 401
    assert api().post("/api/notifications/read-all/").status_code == 401


def test_the_list_is_yours_newest_first(api, alice, told):
    failed, scrim, _ = told
    body = api(alice).get("/api/notifications/").json()
    assert body["count"] == 2
    first, second = body["results"]
    assert first["id"] == scrim.pk and second["id"] == failed.pk
    assert first == {
        "id": scrim.pk,
        "kind": "scrim-finished",
        "kind_label": "a scrim finished",
        "text": "Scrim finished: alice/ace beat bob/bee 6–4",
        "url": "/scrims/3/",
        "created": first["created"],
        "unread": True,
        "read_at": None,
        "email": "",
    }


def test_filters_unread_and_kind(api, alice, told):
    failed, scrim, _ = told
    client = api(alice)
    client.post(f"/api/notifications/{failed.pk}/read/")
    assert [row["id"] for row in client.get("/api/notifications/?unread=true").json()["results"]] == [scrim.pk]
    assert [row["id"] for row in client.get("/api/notifications/?unread=false").json()["results"]] == [failed.pk]
    assert [row["id"] for row in client.get("/api/notifications/?kind=version-failed").json()["results"]] == [failed.pk]
    assert client.get("/api/notifications/?kind=nonsense").status_code == 400


def test_read_unread_and_read_all(api, alice, told):
    failed, scrim, theirs = told
    client = api(alice)
    read = client.post(f"/api/notifications/{failed.pk}/read/").json()
    assert read["unread"] is False and read["read_at"]
    assert client.post(f"/api/notifications/{failed.pk}/unread/").json()["unread"] is True
    assert client.post("/api/notifications/read-all/").json() == {"marked": 2, "unread": 0}
    assert client.post("/api/notifications/read-all/").json() == {"marked": 0, "unread": 0}
    theirs.refresh_from_db()
    assert theirs.unread


def test_someone_elses_notice_is_not_found(api, alice, told):
    theirs = told[2]
    client = api(alice)
    assert client.get(f"/api/notifications/{theirs.pk}/").status_code == 404
    assert client.post(f"/api/notifications/{theirs.pk}/read/").status_code == 404
    theirs.refresh_from_db()
    assert theirs.unread


def test_preferences_read_and_change(api, alice, settings):
    settings.EMAIL_HOST = ""
    client = api(alice)
    body = client.get("/api/notifications/preferences/").json()
    assert body == {
        "kinds": {
            "version-validated": "site",
            "version-failed": "email",
            "bot-paused": "email",
            "scrim-finished": "site",
            "tournament-finished": "email",
            "test-verdict": "email",
            "analysis-finished": "site",
        },
        "email": "",
        "email_configured": False,
    }
    changed = client.patch(
        "/api/notifications/preferences/",
        {"kinds": {"scrim-finished": "email", "test-verdict": "off"}, "email": "alice@example.org"},
        format="json",
    ).json()
    assert changed["kinds"]["scrim-finished"] == "email" and changed["kinds"]["test-verdict"] == "off"
    assert changed["kinds"]["version-failed"] == "email" and changed["email"] == "alice@example.org"
    assert NotificationSetting.objects.count() == 2


@pytest.mark.parametrize(
    "body",
    [{"kinds": {"version-lost": "email"}}, {"kinds": {"scrim-finished": "pigeon"}}, {"email": "not an address"}],
)
def test_wrong_preferences_are_refused(api, alice, body):
    response = api(alice).patch("/api/notifications/preferences/", body, format="json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid"
    assert not NotificationSetting.objects.exists()
