"""Query filters of the list endpoints (django-filter): each a field the list's indexes can answer."""

from __future__ import annotations

import django_filters
from django.db.models import QuerySet

from league.arena.models import GAME_CHOICES, Bot, BotVersion, Match, MatchEntry, Tournament


class BotFilter(django_filters.FilterSet):
    game = django_filters.ChoiceFilter(choices=GAME_CHOICES)
    owner = django_filters.CharFilter(field_name="owner__username", help_text="The owner's username.")
    active = django_filters.BooleanFilter(
        method="filter_active", help_text="true: bots with an active version (on the ladder); false: the others."
    )
    name = django_filters.CharFilter(field_name="name", lookup_expr="iexact", help_text="The name, any case.")
    mine = django_filters.BooleanFilter(method="filter_mine", help_text="true: only your own bots.")

    class Meta:
        model = Bot
        fields = ["game", "owner", "active", "name", "mine"]

    def filter_mine(self, bots: QuerySet, name: str, value: bool) -> QuerySet:
        user = self.request.user if self.request is not None else None
        if not value:
            return bots
        return bots.filter(owner=user) if user is not None and user.is_authenticated else bots.none()

    def filter_active(self, bots: QuerySet, name: str, value: bool) -> QuerySet:
        return bots.filter(active_version__isnull=not value)


class TournamentFilter(django_filters.FilterSet):
    game = django_filters.ChoiceFilter(choices=GAME_CHOICES)
    status = django_filters.ChoiceFilter(choices=Tournament.Status.choices)

    class Meta:
        model = Tournament
        fields = ["game", "status"]


class MatchFilter(django_filters.FilterSet):
    kind = django_filters.ChoiceFilter(choices=Match.Kind.choices)
    game = django_filters.ChoiceFilter(choices=GAME_CHOICES)
    status = django_filters.ChoiceFilter(choices=Match.Status.choices)
    tournament = django_filters.NumberFilter(field_name="tournament_id")
    rated = django_filters.BooleanFilter()
    bot = django_filters.NumberFilter(method="filter_bot", help_text="Matches any version of this bot played.")
    version = django_filters.NumberFilter(method="filter_version", help_text="Matches this version played.")

    class Meta:
        model = Match
        fields = ["kind", "game", "status", "tournament", "rated", "bot", "version"]

    def filter_bot(self, matches: QuerySet, name: str, value: int) -> QuerySet:
        # The version ids as constants let the database walk the entries' version index (see views.recent_matches).
        versions = list(BotVersion.objects.filter(bot_id=value).order_by().values_list("pk", flat=True))
        return matches.filter(pk__in=MatchEntry.objects.filter(version_id__in=versions).values("match_id"))

    def filter_version(self, matches: QuerySet, name: str, value: int) -> QuerySet:
        return matches.filter(pk__in=MatchEntry.objects.filter(version_id=value).values("match_id"))
