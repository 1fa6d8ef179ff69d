"""Every page carries the content security policy, and none needs what it forbids: no inline script or style."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.urls import reverse
from rest_framework.authtoken.models import Token

from league.arena.models import FACE_TO_FACE, Rating, Tournament, TournamentEntry
from league.arena.scrims import requests as scrims

POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "frame-ancestors": "'none'",
}


class InlineCode(HTMLParser):
    """Collects what a policy of script-src 'self' and style-src 'self' would block: inline scripts and styles."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self._in_inline_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        for name, _ in attrs:
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}=...>")
        if "style" in named:
            self.found.append(f"<{tag} style=...>")
        if tag == "style":
            self.found.append("<style> element")
        if tag == "script" and "src" not in named and named.get("type") != "application/json":
            self._in_inline_script = True
        for name in ("href", "src", "action"):
            if (named.get(name) or "").strip().lower().startswith("javascript:"):
                self.found.append(f"<{tag} {name}=javascript:...>")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_inline_script = False

    def handle_data(self, data: str) -> None:
        if self._in_inline_script and data.strip():
            self.found.append(f"inline <script>: {data.strip()[:60]!r}")


def directives(header: str) -> dict[str, str]:
    parts = (part.strip().split(None, 1) for part in header.split(";") if part.strip())
    return {part[0]: part[1] if len(part) > 1 else "" for part in parts}


@pytest.fixture
def pages(db, django_user_model, make_version, record_games):
    owner = django_user_model.objects.create_user("owner", password="correct horse battery")
    django_user_model.objects.create_superuser("root", password="correct horse battery")
    versions = [make_version(owner, f"bot{k}") for k in range(4)]
    for k, version in enumerate(versions):
        Rating.objects.create(version=version, game=FACE_TO_FACE, elo=1600 - k, low=1500, high=1700, games=2)
    failed = make_version(owner, "broken", status="failed")
    failed.failure_reason = "game 1: crash: boom"
    failed.save()
    cup = Tournament.objects.create(name="Cup", status="finished")
    TournamentEntry.objects.bulk_create(TournamentEntry(tournament=cup, bot=v.bot, version=v) for v in versions)
    match = record_games(versions[0], versions[1], [0, 1], tournament=cup, kind="tournament")
    draft = Tournament.objects.create(name="Later", scheduled_at="2099-01-01T00:00Z")
    TournamentEntry.objects.create(tournament=draft, bot=versions[0].bot)
    public = [
        reverse("home"),
        reverse("ladder", args=[FACE_TO_FACE]),
        reverse("tournaments"),
        reverse("tournament", args=[cup.pk]),
        reverse("tournament", args=[draft.pk]),
        reverse("tournament-live", args=[cup.pk]),
        reverse("tournament-matches", args=[cup.pk]),
        reverse("match", args=[match.pk]),
        reverse("bot", args=[versions[0].bot_id]),
        reverse("bot-versions", args=[versions[0].bot_id]),
        reverse("user", args=["owner"]),
        reverse("docs"),
        reverse("doc", args=["rules"]),
        reverse("doc", args=["bot-api"]),
        reverse("login"),
        reverse("signup"),
        reverse("password_reset"),
        reverse("password_reset_done"),
        reverse("password_reset_confirm", args=["MQ", "not-a-token"]),
        "/no/such/page/",
        "/api/docs/",  # Swagger UI under the same policy: its start-up script and style are files
        reverse("data"),
        reverse("kit"),
    ]
    scrim = scrims.request_scrim(owner, versions[0].bot, versions[1].bot, 4)
    Token.objects.create(user=owner)  # the tokens page then offers to revoke it
    owners = [
        *(reverse("my-bots"), reverse("new-bot"), reverse("bot", args=[failed.bot_id])),
        *(reverse("edit-bot", args=[failed.bot_id]), reverse("password_change")),
        *(reverse("bot", args=[versions[0].bot_id]), reverse("scrim", args=[scrim.pk])),  # the scrim form, a request
        reverse("api-tokens"),
    ]
    staff = [
        "/admin/",
        "/admin/arena/botversion/",
        f"/admin/arena/botversion/{failed.pk}/change/",
        reverse("admin:arena_tournament_add"),
        reverse("admin:arena_tournament_change", args=[draft.pk]),
        reverse("tournament", args=[draft.pk]),  # with the staff's buttons
        reverse("tournament-action", args=[draft.pk, "cancel"]),
        reverse("machinery"),
    ]
    return {"public": public, "owner": owners, "root": staff, "owner_user": owner}


def check_page(response, url: str) -> None:
    assert response.status_code in (200, 404), f"{url} answered {response.status_code}"
    header = response.get("Content-Security-Policy")
    assert header, f"{url} has no Content-Security-Policy header"
    policy = directives(header)
    for directive, value in POLICY.items():
        assert policy.get(directive) == value, f"{url}: {directive} is {policy.get(directive)!r}"
    assert "unsafe-inline" not in header and "unsafe-eval" not in header
    parser = InlineCode()
    parser.feed(response.content.decode())
    assert not parser.found, f"{url} has code the policy blocks: {parser.found[:5]}"


def test_every_page_carries_the_policy_and_has_no_inline_code(client, pages, django_user_model):
    for url in pages["public"]:
        check_page(client.get(url), url)
    client.force_login(pages["owner_user"])
    for url in pages["owner"]:
        check_page(client.get(url), url)
    client.force_login(django_user_model.objects.get(username="root"))
    for url in pages["root"]:
        check_page(client.get(url), url)


def test_the_retry_page_has_the_policy_too(client, alice, settings):
    settings.ARENA_SIGNUPS_PER_HOUR = 1
    data = {"username": "someone", "password1": "x", "password2": "y"}
    client.post(reverse("signup"), data)
    response = client.post(reverse("signup"), data)
    assert response.status_code == 429
    assert "Content-Security-Policy" in response


def test_the_parser_finds_inline_code():
    parser = InlineCode()
    parser.feed(
        '<script>alert(1)</script><a onclick="x()">a</a><p style="color:red">b</p><style>p{}</style>'
        '<script type="application/json">{"a": 1}</script><script src="/static/arena/site.js"></script>'
    )
    assert len(parser.found) == 4
