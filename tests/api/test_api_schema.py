"""The OpenAPI schema at /api/schema/: valid OpenAPI 3, an example for every operation, examples that fit their
schemas, a docs page that loads nothing from another host, and live responses that conform (schemathesis)."""

from __future__ import annotations

import re
import time

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate

METHODS = {"get", "post", "put", "patch", "delete"}


@pytest.fixture
def schema(client, db) -> dict:
    response = client.get("/api/schema/?format=json")
    assert response.status_code == 200
    return response.json()


def operations(schema: dict):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield path, method, operation


def test_the_schema_is_valid_openapi_3(schema):
    validate(schema)
    assert schema["openapi"] == "3.1.0"
    paths = set(schema["paths"])
    for expected in (
        "/api/users/{username}/",
        "/api/bots/{id}/versions/",
        "/api/bots/{id}/ratings/",
        "/api/versions/{id}/source",
        "/api/tournaments/{id}/crosstable/",
        "/api/matches/{id}/games/",
        "/api/games/{id}/log",
        "/api/leaderboards/{game}/",
        "/api/match-requests/",
        "/api/match-requests/{id}/",
        "/api/seasons/{id}/deals/{deal}/",
        "/api/seasons/{id}/results/",
        "/api/seasons/{id}/leaderboard/",
        "/api/notifications/",
        "/api/notifications/{id}/read/",
        "/api/notifications/read-all/",
        "/api/notifications/preferences/",
        "/api/tests/",
        "/api/tests/{id}/cancel/",
    ):
        assert expected in paths


def test_every_operation_has_a_summary_and_an_example(schema):
    missing = []
    for path, method, operation in operations(schema):
        success = [body for code, body in operation["responses"].items() if code.startswith("2")]
        examples = [
            name for body in success for media in body.get("content", {}).values() for name in media.get("examples", {})
        ]
        if not examples or not operation.get("summary"):
            missing.append(f"{method.upper()} {path}")
    assert missing == []


def test_every_example_fits_its_schema(schema):
    checked = 0
    for path, method, operation in operations(schema):
        for code, body in operation["responses"].items():
            for media_type, media in body.get("content", {}).items():
                if media_type != "application/json":
                    continue
                # The components beside the schema, so its "#/components/..." references resolve.
                validator = OAS31Validator({**media["schema"], "components": schema["components"]})
                for name, example in media.get("examples", {}).items():
                    errors = [f"{e.json_path}: {e.message}" for e in validator.iter_errors(example["value"])]
                    assert errors == [], f"{method.upper()} {path} {code} example {name}: {errors[:3]}"
                    checked += 1
    assert checked > 20


def test_the_docs_page_loads_nothing_from_another_host(client, db):
    page = client.get("/api/docs/").content.decode()
    assert "swagger-ui" in page
    urls = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)""", page) + re.findall(r"""url\(\s*["']?([^"')]+)""", page)
    assert urls and all(url.startswith("/") and not url.startswith("//") for url in urls), urls
    assert not re.search(r"https?://(?!testserver)", page), re.findall(r"https?://[^\s\"']+", page)
    for url in urls:
        assert client.get(url).status_code == 200, url  # served by this server (WhiteNoise)
    script = client.get("/api/docs/?script=")  # the start-up script, a file for the content security policy
    assert script["Content-Type"].startswith("application/javascript")
    assert '"validatorUrl": null' in script.content.decode() and "/api/docs/?script=" in urls


def test_live_get_responses_conform_to_the_schema(league, settings_for_schemathesis):
    """Schemathesis generates GET requests for every read endpoint and checks status codes, content types and
    bodies against the schema; bounded to a few examples each (about half a minute on a loaded machine)."""
    from league.arena.models import VersionTest
    from league.wsgi import application

    public_test = VersionTest.objects.create(
        owner=league["ace"].owner,
        bot=league["ace"],
        version=league["ace_v1"],
        base_bot=league["bee"],
        base_version=league["bee_v1"],
        max_games=100,
        batch_pairs=2,
        seed="s",
        public=True,
        counts=[1, 0, 3, 0, 2],
        history=[[12, 0.3]],
    )
    api = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
    real = {  # half the cases ask for objects that exist, so 200 bodies are checked, not only 404s
        "users": "alice",
        "bots": league["ace"].pk,
        "versions": league["ace_v1"].pk,
        "tournaments": league["tournament"].pk,
        "matches": league["ladder"].pk,
        "games": league["game"].pk,
        "leaderboards": "face-to-face",
        "match-requests": league["scrim"].pk,  # a 401 here (anonymous), as documented
        "seasons": league["season"].pk,
        "notifications": league["notice"].pk,  # a 401 here (anonymous), as documented
        "tests": public_test.pk,
    }

    def existing(case):
        for name in case.path_parameters or {}:
            case.path_parameters[name] = 1 if name == "deal" else real[case.path.split("/")[2]]
        return case

    started, failures, ran = time.monotonic(), [], 0
    for result in api.get_all_operations():
        operation = result.ok()
        if operation.method.upper() != "GET":
            continue

        generated = operation.as_strategy()

        @settings(max_examples=8, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(case=st.one_of(generated, generated.map(existing)))
        def check(case) -> None:
            case.call_and_validate()

        try:
            check()
        except Exception as error:  # collect them all: one report names every operation that fails
            failures.append(f"{operation.method.upper()} {operation.path}: {error}")
        ran += 1
    assert ran >= 25  # every read endpoint, the co-op seasons included
    assert failures == [], "\n\n".join(failures)
    assert time.monotonic() - started < 60


@pytest.fixture
def settings_for_schemathesis(settings):
    """Generous rates: schemathesis sends a few hundred requests from one address."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "100000/minute", "user": "100000/minute", "uploads": "1000/minute"},
    }
    settings.ALLOWED_HOSTS = ["*"]
    # Called directly, the WSGI application would close the test's database connection after each request;
    # Django's test client disconnects the same handlers.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)
