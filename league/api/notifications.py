"""/api/notifications/: what the site's notification centre shows, for scripts: your notices newest first, marking
them read (one, or all), and your preferences (league/arena/notifications does the work).

Every notice is private: its recipient lists, reads and marks it; anyone else gets a 404 (401 when not signed in).
"""

from __future__ import annotations

from typing import Any

import django_filters
from django.core.paginator import Paginator
from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from league.api import docs
from league.api.pagination import Pages
from league.arena.models import Notification, NotificationSetting
from league.arena.notifications import inbox, preferences

Kind, Delivery = Notification.Kind, NotificationSetting.Delivery

# --- Serializers -------------------------------------------------------------------------------------------------


class NotificationSerializer(serializers.ModelSerializer):
    kind = serializers.ChoiceField(choices=Kind.choices, help_text=", ".join(Kind.values))
    kind_label = serializers.CharField(source="get_kind_display", help_text="The kind in words.")
    url = serializers.CharField(help_text="Where to look: a path on the site (may be empty).")
    unread = serializers.BooleanField()
    email = serializers.ChoiceField(
        choices=Notification.Email.choices, help_text="Its e-mail: empty (none), pending, sent or failed."
    )

    class Meta:
        model = Notification
        fields = ["id", "kind", "kind_label", "text", "url", "created", "unread", "read_at", "email"]
        read_only_fields = fields


class MarkedSerializer(serializers.Serializer):
    marked = serializers.IntegerField(help_text="How many unread notices were marked read.")
    unread = serializers.IntegerField(help_text="How many are unread now.")


class PreferencesSerializer(serializers.Serializer):
    kinds = serializers.DictField(
        child=serializers.ChoiceField(choices=Delivery.choices),
        help_text=f"For each kind ({', '.join(Kind.values)}): {', '.join(Delivery.values)}.",
    )
    email = serializers.EmailField(required=False, allow_blank=True, help_text="Where e-mails go (empty: nowhere).")
    email_configured = serializers.BooleanField(
        read_only=True, help_text="false: this server sends no e-mail (no EMAIL_HOST); `email` choices wait for it."
    )

    def validate_kinds(self, value: dict[str, str]) -> dict[str, str]:
        unknown = sorted(set(value) - set(Kind.values))
        if unknown:
            raise serializers.ValidationError(f"no such kind: {', '.join(unknown)}; kinds are {', '.join(Kind.values)}")
        return value


# --- The OpenAPI description ---------------------------------------------------------------------------------------

NOTICE = {
    "id": 81,
    "kind": "version-failed",
    "kind_label": "a version failed its validation",
    "text": "cautious v4 failed its validation: game 3: illegal-turn: played 17 on the ascending pile at 23",
    "url": "/bots/7/#versions",
    "created": docs.WHEN,
    "unread": True,
    "read_at": None,
    "email": "sent",
}
PREFERENCES = {
    "kinds": {
        "version-validated": "site",
        "version-failed": "email",
        "bot-paused": "email",
        "scrim-finished": "site",
        "tournament-finished": "email",
        "test-verdict": "off",
        "analysis-finished": "site",
    },
    "email": "alice@example.org",
    "email_configured": True,
}
NO_SUCH_NOTICE = docs.error(404, "not_found", "No Notification matches the given query.")
WRONG_PREFERENCE = docs.error(400, "invalid", "no such kind: version-lost")


schema = extend_schema_view(
    list=extend_schema(
        summary="Your notifications, newest first",
        description=(
            "What the site's notification centre shows: a version validated or failed, a bot paused for forfeits, a "
            "scrim or a tournament you entered finished, a version test's verdict. Filters: `unread` (true: only "
            "unread), `kind`."
        ),
        parameters=docs.PAGING,
        responses={200: NotificationSerializer(many=True), 401: docs.NOT_AUTHENTICATED, **docs.LIST_ERRORS},
        examples=[docs.example("notifications", NOTICE)],
    ),
    retrieve=extend_schema(
        summary="One of your notifications",
        responses={200: NotificationSerializer, 401: docs.NOT_AUTHENTICATED, 404: NO_SUCH_NOTICE},
        examples=[docs.example("notification", NOTICE)],
    ),
    read=extend_schema(
        summary="Mark one of your notifications read",
        request=None,
        responses={200: NotificationSerializer, 401: docs.NOT_AUTHENTICATED, 404: NO_SUCH_NOTICE},
        examples=[docs.example("read", {**NOTICE, "unread": False, "read_at": docs.WHEN})],
    ),
    unread=extend_schema(
        summary="Mark one of your notifications unread again",
        request=None,
        responses={200: NotificationSerializer, 401: docs.NOT_AUTHENTICATED, 404: NO_SUCH_NOTICE},
        examples=[docs.example("unread", NOTICE)],
    ),
    read_all=extend_schema(
        summary="Mark all your notifications read",
        request=None,
        responses={200: MarkedSerializer, 401: docs.NOT_AUTHENTICATED},
        examples=[docs.example("marked", {"marked": 3, "unread": 0})],
    ),
    preferences=extend_schema(
        summary="How you are told of each kind of notification",
        description=(
            "GET reads, PATCH changes (only the kinds you send; `email` sets your address). For each kind: `email` "
            "(on the site and by e-mail), `site` (on the site only) or `off`."
        ),
        request=PreferencesSerializer,
        responses={200: PreferencesSerializer, 400: WRONG_PREFERENCE, 401: docs.NOT_AUTHENTICATED},
        examples=[
            docs.example("preferences", PREFERENCES),
            OpenApiExample("change", value={"kinds": {"scrim-finished": "email"}}, request_only=True),
        ],
    ),
)


# --- The endpoint ------------------------------------------------------------------------------------------------


class NotificationFilter(django_filters.FilterSet):
    unread = django_filters.BooleanFilter(field_name="read_at", lookup_expr="isnull", help_text="true: only unread.")
    kind = django_filters.ChoiceFilter(choices=Kind.choices)

    class Meta:
        model = Notification
        fields = ["unread", "kind"]


class FreshPages(Pages):
    """A user's own notices: counted fresh on every request (a count cached for half a minute would lag behind
    marking them read)."""

    django_paginator_class = Paginator


@schema
class NotificationViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Your notifications; POST .../read/ and /read-all/ mark them read."""

    permission_classes = [IsAuthenticated]
    serializer_class = NotificationSerializer
    filterset_class = NotificationFilter
    pagination_class = FreshPages
    queryset = Notification.objects.none()  # the model, for the schema; get_queryset says whose

    def get_queryset(self) -> QuerySet[Notification]:
        user = self.request.user
        if not user.is_authenticated:  # the schema generator's anonymous request; permissions refuse real ones
            return Notification.objects.none()
        return inbox.of(user.pk)

    @action(detail=True, methods=["post"])
    def read(self, request: Request, pk: Any = None) -> Response:
        notice = self.get_object()
        inbox.mark_read(request.user.pk, [notice.pk])
        notice.refresh_from_db()
        return Response(NotificationSerializer(notice).data)

    @action(detail=True, methods=["post"])
    def unread(self, request: Request, pk: Any = None) -> Response:
        notice = self.get_object()
        inbox.mark_unread(request.user.pk, [notice.pk])
        notice.refresh_from_db()
        return Response(NotificationSerializer(notice).data)

    @action(detail=False, methods=["post"], url_path="read-all")
    def read_all(self, request: Request) -> Response:
        marked = inbox.mark_read(request.user.pk)
        return Response({"marked": marked, "unread": inbox.unread_count(request.user.pk)})

    @action(detail=False, methods=["get", "patch"], filterset_class=None, pagination_class=None)
    def preferences(self, request: Request) -> Response:
        user = request.user
        if request.method == "PATCH":
            asked = PreferencesSerializer(data=request.data, partial=True)
            asked.is_valid(raise_exception=True)
            preferences.save(user.pk, asked.validated_data.get("kinds", {}))
            if "email" in asked.validated_data and asked.validated_data["email"] != user.email:
                user.email = asked.validated_data["email"]
                user.save(update_fields=["email"])
        body = {
            "kinds": preferences.choices(user.pk),
            "email": user.email,
            "email_configured": preferences.email_configured(),
        }
        return Response(body)
