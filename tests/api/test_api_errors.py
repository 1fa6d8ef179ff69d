"""Every failed API request answers the same body: {"error": {"status", "code", "message", "fields"?}}."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

GOOD_BOT = b"def play(observation):\n    return []\n"


def error_of(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"error"} and body["error"]["status"] == status and body["error"]["code"] == code
    assert body["error"]["message"]
    return body["error"]


@pytest.fixture
def rates(settings):
    def set_rates(**rates: str) -> None:
        settings.REST_FRAMEWORK = {
            **settings.REST_FRAMEWORK,
            "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **rates},
        }

    return set_rates


def test_unknown_urls_objects_and_pages_are_404(api, db):
    client = api()
    assert "no API endpoint at /api/bots (add a /)" in error_of(client.get("/api/bots"), 404, "not_found")["message"]
    assert "(add a /)" not in error_of(client.post("/api/whatever/deeper"), 404, "not_found")["message"]
    error_of(client.get("/api/leaderboards/the-game%0A/"), 404, "not_found")  # a newline in the path
    error_of(client.get("/api/bots/999999/"), 404, "not_found")
    error_of(client.get("/api/bots/?page=99"), 404, "not_found")
    error_of(client.get("/api/leaderboards/face-to-face/?page=2"), 404, "not_found")
    error_of(client.get("/api/leaderboards/face-to-face/?page=x"), 404, "not_found")
    error_of(client.get("/api/leaderboards/chess/"), 404, "not_found")


def test_wrong_methods_are_405(api, alice, make_version):
    bot = make_version(alice, "mybot").bot
    error = error_of(api(alice).delete(f"/api/bots/{bot.pk}/"), 405, "method_not_allowed")
    assert 'Method "DELETE" not allowed.' == error["message"]
    error_of(api(alice).post("/api/tournaments/"), 405, "method_not_allowed")


def test_without_credentials_writes_are_401_and_a_bad_token_too(api, db):
    error = error_of(api().post("/api/bots/", {}), 401, "not_authenticated")
    assert error["message"] == "Authentication credentials were not provided."
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    response = client.get("/api/bots/")
    assert error_of(response, 401, "authentication_failed")["message"] == "Invalid token."
    assert response["WWW-Authenticate"] == "Token"


def test_invalid_input_names_its_fields(api, alice, make_version):
    bot = make_version(alice, "mybot").bot
    error = error_of(api(alice).patch(f"/api/bots/{bot.pk}/", {"name": ""}, format="json"), 400, "invalid")
    assert error["fields"] == {"name": ["This field may not be blank."]}
    assert error["message"] == "name: This field may not be blank."
    error_of(api().get("/api/bots/?game=chess"), 400, "invalid")


def test_a_session_needs_the_csrf_token_to_write(alice, make_version):
    bot = make_version(alice, "mybot").bot
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.get(f"/api/bots/{bot.pk}/").status_code == 200
    error = error_of(
        client.patch(f"/api/bots/{bot.pk}/", {"description": "x"}, format="json"), 403, "permission_denied"
    )
    assert "CSRF" in error["message"]


def test_throttled_requests_are_429_with_retry_after(api, db, rates):
    rates(anon="3/minute")
    client = api()
    assert [client.get("/api/users/").status_code for _ in range(3)] == [200, 200, 200]
    response = client.get("/api/users/")
    assert "throttled" in error_of(response, 429, "throttled")["message"]
    assert 0 < int(response["Retry-After"]) <= 60


def test_signed_in_users_have_their_own_rate(api, alice, bob, rates):
    rates(user="2/minute")
    assert [api(alice).get("/api/bots/").status_code for _ in range(3)] == [200, 200, 429]
    assert api(bob).get("/api/bots/").status_code == 200


def test_uploads_are_throttled_harder_than_reads(api, alice, rates, sent):
    rates(uploads="1/hour", user="100/minute")
    client = api(alice)
    data = {"name": "first", "game": "face-to-face", "file": SimpleUploadedFile("bot.py", GOOD_BOT)}
    assert client.post("/api/bots/", data, format="multipart").status_code == 201
    data = {"name": "second", "game": "face-to-face", "file": SimpleUploadedFile("bot.py", GOOD_BOT + b"#\n")}
    error_of(client.post("/api/bots/", data, format="multipart"), 429, "throttled")
    assert client.get("/api/bots/").status_code == 200


def test_an_upload_refused_for_what_it_sent_does_not_count_against_the_upload_rate(
    api, alice, make_version, rates, sent
):
    rates(uploads="1/hour", user="100/minute")
    client = api(alice)
    broken = {"name": "broken", "game": "face-to-face", "file": SimpleUploadedFile("bot.py", b"def play(:\n")}
    error = error_of(client.post("/api/bots/", broken, format="multipart"), 400, "invalid")
    assert "does not compile" in error["fields"]["file"][0]
    bot = make_version(alice, "mine").bot
    again = {"file": SimpleUploadedFile("bot.py", b"def play(:\n")}
    error_of(client.post(f"/api/bots/{bot.pk}/versions/", again, format="multipart"), 400, "invalid")
    taken = {"name": "mine", "game": "face-to-face", "file": SimpleUploadedFile("bot.py", GOOD_BOT)}
    error_of(client.post("/api/bots/", taken, format="multipart"), 400, "invalid")
    # three refusals, and the hour's one upload is still there; the next one is throttled
    good = {"name": "first", "game": "face-to-face", "file": SimpleUploadedFile("bot.py", GOOD_BOT)}
    assert client.post("/api/bots/", good, format="multipart").status_code == 201
    again = {"file": SimpleUploadedFile("bot.py", GOOD_BOT + b"# v2\n")}
    error_of(client.post(f"/api/bots/{bot.pk}/versions/", again, format="multipart"), 429, "throttled")
    # a throttled request gives nothing back
    error_of(client.post(f"/api/bots/{bot.pk}/versions/", again, format="multipart"), 429, "throttled")
