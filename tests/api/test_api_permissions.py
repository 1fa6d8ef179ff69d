"""Every API endpoint for each of anonymous, the owner (Alice), another user (Bob) and staff: the status code, and
that private details reach only those allowed to see them (a version's failure and stderr, an entry's stderr, the
run's state of a match, a bot's source, the validation matches, a scrim request)."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

ROLES = ("anonymous", "owner", "other", "staff")
EVERYONE = dict.fromkeys(ROLES, 200)
OWNER_AND_STAFF = {"anonymous": 404, "owner": 200, "other": 404, "staff": 200}
OWNER_WRITES = {"anonymous": 401, "owner": 200, "other": 403, "staff": 403}
NOT_ALLOWED = {"anonymous": 401, "owner": 405, "other": 405, "staff": 405}
SIGNED_IN = {"anonymous": 401, "owner": 200, "other": 200, "staff": 200}
NEW_BOT_SOURCE = b"def play(observation):\n    return []\n# new\n"


def new_bot():
    return {"name": "fresh", "game": "face-to-face", "file": SimpleUploadedFile("bot.py", NEW_BOT_SOURCE)}


def new_version():
    return {"file": SimpleUploadedFile("bot.py", NEW_BOT_SOURCE + b"# v3\n")}


def new_scrim():
    return {"bot": "{ace}", "opponent": "{bee}", "games": 2}  # ids filled in from the league fixture


# (method, path with {placeholders} from the league fixture, body factory, expected status per role,
#  roles that see the marks, marks: strings in the body that only those roles may get)
CASES = [
    ("GET", "/api/", None, EVERYONE, (), ()),
    ("GET", "/api/users/", None, EVERYONE, (), ()),
    ("GET", "/api/users/alice/", None, EVERYONE, (), ()),
    ("GET", "/api/users/nobody/", None, dict.fromkeys(ROLES, 404), (), ()),
    ("GET", "/api/bots/", None, EVERYONE, (), ()),
    ("POST", "/api/bots/", new_bot, {"anonymous": 401, "owner": 201, "other": 201, "staff": 201}, (), ()),
    ("GET", "/api/bots/{ace}/", None, EVERYONE, (), ()),
    ("PATCH", "/api/bots/{ace}/", lambda: {"description": "new words"}, OWNER_WRITES, (), ()),
    ("PUT", "/api/bots/{ace}/", lambda: {"name": "x"}, NOT_ALLOWED, (), ()),
    ("POST", "/api/bots/{ace}/retire/", None, OWNER_WRITES, (), ()),
    ("POST", "/api/bots/{ace}/unretire/", None, OWNER_WRITES, (), ()),
    ("DELETE", "/api/bots/{ace}/", None, NOT_ALLOWED, (), ()),
    (
        "GET",
        "/api/bots/{ace}/versions/",
        None,
        EVERYONE,
        ("owner", "staff"),
        ("secret-reason", "secret-stderr", '"failure_reason"', '"validation_match"'),
    ),
    (
        "POST",
        "/api/bots/{ace}/versions/",
        new_version,
        {"anonymous": 401, "owner": 201, "other": 403, "staff": 403},
        (),
        (),
    ),
    ("GET", "/api/bots/{ace}/ratings/", None, EVERYONE, (), ()),
    (
        "GET",
        "/api/versions/{ace_failed}/",
        None,
        EVERYONE,
        ("owner", "staff"),
        ("secret-reason", "secret-stderr", '"stderr_tail"', '"validation_match"'),
    ),
    ("GET", "/api/versions/{ace_v1}/source", None, OWNER_AND_STAFF, ("owner", "staff"), ("def play",)),
    (
        "GET",
        "/api/versions/{bee_v1}/source",
        None,
        {"anonymous": 404, "owner": 404, "other": 200, "staff": 200},
        (),
        (),
    ),
    ("GET", "/api/tournaments/", None, EVERYONE, (), ()),
    ("GET", "/api/tournaments/{tournament}/", None, EVERYONE, (), ()),
    ("GET", "/api/tournaments/{tournament}/standings/", None, EVERYONE, (), ()),
    ("GET", "/api/tournaments/{tournament}/crosstable/", None, EVERYONE, (), ()),
    ("GET", "/api/matches/", None, EVERYONE, ("owner", "staff"), ('"kind":"validation"',)),
    ("GET", "/api/matches/?kind=validation", None, EVERYONE, ("owner", "staff"), ('"kind":"validation"',)),
    ("GET", "/api/matches/{ladder}/", None, EVERYONE, ("owner", "staff"), ("ace-entry-stderr",)),
    ("GET", "/api/matches/{ladder}/games/", None, EVERYONE, (), ()),
    ("GET", "/api/matches/{validation}/", None, OWNER_AND_STAFF, (), ()),
    ("GET", "/api/matches/{validation}/games/", None, OWNER_AND_STAFF, (), ()),
    ("GET", "/api/games/{game}/", None, EVERYONE, (), ()),
    ("GET", "/api/games/{game}/log", None, EVERYONE, (), ()),
    ("GET", "/api/games/{validation_game}/", None, OWNER_AND_STAFF, (), ()),
    ("GET", "/api/games/{validation_game}/log", None, OWNER_AND_STAFF, (), ()),
    ("GET", "/api/match-requests/", None, SIGNED_IN, ("owner",), ("/scrims/",)),
    ("GET", "/api/match-requests/{scrim}/", None, {"anonymous": 401, "owner": 200, "other": 404, "staff": 200}, (), ()),
    ("POST", "/api/match-requests/", new_scrim, {"anonymous": 401, "owner": 201, "other": 403, "staff": 403}, (), ()),
    ("PATCH", "/api/match-requests/{scrim}/", lambda: {"games": 1}, NOT_ALLOWED, (), ()),
    ("DELETE", "/api/match-requests/{scrim}/", None, NOT_ALLOWED, (), ()),
    ("GET", "/api/leaderboards/", None, EVERYONE, (), ()),
    ("GET", "/api/leaderboards/face-to-face/", None, EVERYONE, (), ()),
    ("GET", "/api/seasons/", None, EVERYONE, (), ()),
    ("GET", "/api/seasons/?game=the-game&current=true", None, EVERYONE, (), ()),
    ("POST", "/api/seasons/", lambda: {"game": "the-game"}, NOT_ALLOWED, (), ()),
    ("GET", "/api/seasons/{season}/", None, EVERYONE, (), ()),
    ("PATCH", "/api/seasons/{season}/", lambda: {"deals": 5}, NOT_ALLOWED, (), ()),
    ("DELETE", "/api/seasons/{season}/", None, NOT_ALLOWED, (), ()),
    ("GET", "/api/seasons/{season}/deals/", None, EVERYONE, (), ()),
    ("GET", "/api/seasons/{season}/deals/3/", None, EVERYONE, (), ()),
    ("GET", "/api/seasons/{season}/deals/4/", None, dict.fromkeys(ROLES, 404), (), ()),
    ("GET", "/api/seasons/{season}/results/", None, EVERYONE, (), ()),
    ("GET", "/api/seasons/{season}/results/?bot={solo}&players=2", None, EVERYONE, (), ()),
    ("GET", "/api/seasons/{season}/leaderboard/?players=2", None, EVERYONE, (), ()),
    ("GET", "/api/seasons/{season}/leaderboard/?players=3", None, dict.fromkeys(ROLES, 404), (), ()),
    ("GET", "/api/seasons/999999/results/", None, dict.fromkeys(ROLES, 404), (), ()),
    ("GET", "/api/schema/", None, EVERYONE, (), ()),
    ("GET", "/api/docs/", None, EVERYONE, (), ()),
    ("GET", "/api/no-such-thing/", None, dict.fromkeys(ROLES, 404), (), ()),
]


def user_for(role, alice, bob, staff):
    return {"anonymous": None, "owner": alice, "other": bob, "staff": staff}[role]


def ids(league):
    return {name: getattr(value, "pk", value) for name, value in league.items()}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(
    ("method", "path", "body", "expected", "seers", "marks"), CASES, ids=[f"{c[0]} {c[1]}" for c in CASES]
)
def test_permission_matrix(league, api, alice, bob, staff, sent, role, method, path, body, expected, seers, marks):
    client = api(user_for(role, alice, bob, staff))
    url = path.format(**ids(league))
    kwargs = {}
    if body is not None:
        data = {k: v.format(**ids(league)) if isinstance(v, str) else v for k, v in body().items()}
        kwargs = {"data": data, "format": "multipart" if "file" in data else "json"}
    response = getattr(client, method.lower())(url, **kwargs)
    assert response.status_code == expected[role], response.content[:300]
    content = response.content.decode(errors="replace")
    if response.status_code >= 400 and path not in ("/api/docs/",):
        assert set(response.json()) == {"error"} and response.json()["error"]["status"] == response.status_code
    for mark in marks:
        if role in seers:
            assert mark in content, f"{role} should see {mark}"
        else:
            assert mark not in content, f"{role} must not see {mark}"


@pytest.mark.parametrize("role", ROLES)
def test_only_staff_see_the_run_state_of_a_match(league, api, alice, bob, staff, role):
    data = api(user_for(role, alice, bob, staff)).get(f"/api/matches/{league['ladder'].pk}/").json()
    assert ({"error", "claimed_by", "attempts"} <= set(data)) == (role == "staff")
    stderr = {entry["index"]: entry.get("stderr_tail") for entry in data["entries"]}
    # Alice owns entry 0; Bob's entry 1 has no stderr, but its key is his (and staff's) alone.
    assert ("stderr_tail" in data["entries"][0]) == (role in ("owner", "staff"))
    assert ("stderr_tail" in data["entries"][1]) == (role in ("other", "staff"))
    assert stderr[0] in (None, "ace-entry-stderr")


def test_writes_change_only_what_the_owner_asked(league, api, alice, bob, staff):
    bot = league["ace"]
    for user in (None, bob, staff):
        api(user).patch(f"/api/bots/{bot.pk}/", {"description": "vandalised"}, format="json")
    bot.refresh_from_db()
    assert bot.description == ""
    response = api(alice).patch(f"/api/bots/{bot.pk}/", {"name": "ace-2", "description": "mine"}, format="json")
    assert response.status_code == 200 and response.json()["name"] == "ace-2"
    bot.refresh_from_db()
    assert (bot.name, bot.description) == ("ace-2", "mine")


def test_a_rename_follows_the_name_rules(league, api, alice, make_version):
    make_version(alice, "other")
    client, url = api(alice), f"/api/bots/{league['ace'].pk}/"
    taken = client.patch(url, {"name": "OTHER"}, format="json").json()["error"]
    assert taken["fields"] == {"name": ["You already have a bot called OTHER."]}
    bad = client.patch(url, {"name": "no spaces"}, format="json").json()["error"]
    assert bad["fields"]["name"] == ["Use 1 to 40 letters, digits, '-' or '_', starting with a letter or digit."]


def test_the_validation_match_is_listed_only_for_its_owner_and_staff(league, api, alice, bob, staff):
    validation = league["validation"].pk
    for user, sees in ((None, False), (alice, True), (bob, False), (staff, True)):
        listed = [match["id"] for match in api(user).get("/api/matches/").json()["results"]]
        assert (validation in listed) == sees
        filtered = api(user).get(f"/api/matches/?bot={league['ace'].pk}").json()["results"]
        assert (validation in [match["id"] for match in filtered]) == sees


def test_the_owners_validation_matches_are_cached_and_a_new_one_is_listed_at_once(
    league, api, alice, bob, make_version, django_capture_on_commit_callbacks
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from league.arena.uploads import validation as validations

    def listed(user) -> tuple[list[int], int]:
        with CaptureQueriesContext(connection) as queries:
            found = [match["id"] for match in api(user).get("/api/matches/?kind=validation").json()["results"]]
        return found, len(queries)

    first, cold = listed(alice)
    again, warm = listed(alice)
    assert first == again == [league["validation"].pk] and warm == cold - 1  # the owner's list came from the cache
    candidate = make_version(alice, "ace", status="validating")
    with django_capture_on_commit_callbacks(execute=True):
        made = validations.queue_validation(candidate)  # one match per house opponent
    assert listed(alice)[0] == sorted((match.pk for match in made), reverse=True) + [league["validation"].pk]
    assert listed(bob)[0] == [] and listed(None)[0] == []
