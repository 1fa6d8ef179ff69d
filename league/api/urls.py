"""URLs under /api/: the resources, the OpenAPI schema and its docs page, and a JSON 404 for everything else.

Only Swagger UI is served for docs: drf-spectacular's Redoc page loads fonts from Google, and nothing here may
call another host. The docs page is the split variant (its start-up script a file of its own, ?script=) on a template
without inline style, so it renders under the site's policy (script-src 'self', style-src 'self') unchanged.
"""

from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from league.api import analyses, archives, coop, match_requests, notifications, version_tests, views
from league.api.errors import NotFoundView

router = DefaultRouter(trailing_slash=True)
router.include_format_suffixes = False
router.register("users", views.UserViewSet, basename="user")
router.register("bots", views.BotViewSet, basename="bot")
router.register("versions", views.VersionViewSet, basename="version")
router.register("tournaments", views.TournamentViewSet, basename="tournament")
router.register("matches", views.MatchViewSet, basename="match")
router.register("games", views.GameViewSet, basename="game")
router.register("leaderboards", views.LeaderboardViewSet, basename="leaderboard")
router.register("match-requests", match_requests.MatchRequestViewSet, basename="match-request")
router.register("seasons", coop.SeasonViewSet, basename="season")
router.register("tests", version_tests.VersionTestViewSet, basename="version-test")
router.register("notifications", notifications.NotificationViewSet, basename="notification")

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path(
        "docs/",
        SpectacularSwaggerSplitView.as_view(url_name="api:schema", template_name="api/swagger_ui.html"),
        name="docs",
    ),
    # Downloads are files, named without a trailing slash.
    path("versions/<int:pk>/source", views.VersionViewSet.as_view({"get": "source"}), name="version-source"),
    path("games/<int:pk>/log", views.GameViewSet.as_view({"get": "log"}), name="game-log"),
    path("archives/", archives.ArchiveList.as_view(), name="archives"),
    path("games/<int:pk>/analysis/", analyses.GameAnalysisView.as_view(), name="game-analysis"),
    *router.urls,
    re_path(r"^[\s\S]*$", NotFoundView.as_view()),  # any path, a newline in it too (schemathesis found one)
]
