"""URLs of the league server."""

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from league.api.tokens import tokens_page
from league.arena.accounts import passwords
from league.arena.accounts import views as account_views
from league.arena.coop import views as coop_views
from league.arena.ladder import views as ladder_views
from league.arena.notifications import views as notification_views
from league.arena.ops import views as ops_views
from league.arena.ops.health import healthz
from league.arena.ops.metrics import metrics_view
from league.arena.play import views as play_views
from league.arena.profiles import views as profile_views
from league.arena.scrims import views as scrim_views
from league.arena.site import views as site_views
from league.arena.tournaments import actions as tournament_actions
from league.arena.tournaments import views as tournament_views
from league.arena.uploads import owner_views, version_views
from league.arena.uploads import views as upload_views
from league.arena.versiontests import views as test_views

# LoginView names the site after the request's host (127.0.0.1:8000) unless told otherwise.
NAMED_AFTER_THE_SITE = {"site_name": settings.SITE_NAME}

urlpatterns = [
    path("", site_views.home, name="home"),
    path("accounts/signup/", account_views.signup, name="signup"),
    path("accounts/login/", auth_views.LoginView.as_view(extra_context=NAMED_AFTER_THE_SITE), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    *passwords.urlpatterns,
    path("my/bots/", upload_views.my_bots, name="my-bots"),
    path("bots/new/", upload_views.new_bot, name="new-bot"),
    path("bots/<int:bot_id>/", profile_views.bot_page, name="bot"),
    path("bots/<int:bot_id>/versions/", profile_views.bot_versions, name="bot-versions"),
    path("bots/<int:bot_id>/status.json", profile_views.bot_status, name="bot-status"),
    path("bots/<int:bot_id>/upload/", profile_views.new_version, name="new-version"),
    path("bots/<int:bot_id>/edit/", owner_views.edit_bot, name="edit-bot"),
    path("bots/<int:bot_id>/retire/", owner_views.retire_bot, name="retire-bot"),
    path("bots/<int:bot_id>/unretire/", owner_views.unretire_bot, name="unretire-bot"),
    path("bots/<int:bot_id>/options/", owner_views.bot_options, name="bot-options"),
    path("bots/<int:bot_id>/resume/", ladder_views.resume_bot, name="resume-bot"),
    path(
        "bots/<int:bot_id>/versions/<int:number>/download/",
        owner_views.download_version,
        name="download-version",
    ),
    path("bots/<int:bot_id>/versions/<int:number>/prune/", version_views.prune_version, name="prune-version"),
    path(
        "bots/<int:bot_id>/versions/<int:number>/revalidate/",
        version_views.revalidate_version,
        name="revalidate-version",
    ),
    path("bots/<int:bot_id>/scrims/", profile_views.new_scrim, name="new-scrim"),
    path("scrims/<int:scrim_id>/", scrim_views.scrim_page, name="scrim"),
    path("scrims/<int:scrim_id>/status/", scrim_views.scrim_status, name="scrim-status"),
    path("bots/<int:bot_id>/tests/", profile_views.new_version_test, name="new-version-test"),
    path("tests/<int:test_id>/", test_views.test_page, name="version-test"),
    path("tests/<int:test_id>/status/", test_views.test_status, name="version-test-status"),
    path("tests/<int:test_id>/cancel/", test_views.cancel_test, name="version-test-cancel"),
    path("ladder/", ladder_views.leaderboard, name="ladder-default"),
    path("ladder/<slug:game>/", coop_views.ladder, name="ladder"),
    path("seasons/<int:season_id>/", coop_views.season_page, name="season"),
    path("seasons/<int:season_id>/ladder/<int:players>/", coop_views.season_ladder, name="season-ladder"),
    path("seasons/<int:season_id>/seeds.txt", coop_views.season_seeds_text, name="season-seeds-text"),
    path("seasons/<int:season_id>/seeds.json", coop_views.season_seeds_json, name="season-seeds-json"),
    path("seasons/<int:season_id>/deals/<int:deal>/", coop_views.deal_page, name="season-deal"),
    path("tournaments/", tournament_views.tournament_list, name="tournaments"),
    path("tournaments/<int:tournament_id>/", tournament_views.tournament_page, name="tournament"),
    path("tournaments/<int:tournament_id>/live/", tournament_views.tournament_live, name="tournament-live"),
    path("tournaments/<int:tournament_id>/matches/", tournament_views.tournament_matches, name="tournament-matches"),
    path("tournaments/<int:tournament_id>/enter/", tournament_actions.enter_tournament, name="tournament-enter"),
    path(
        "tournaments/<int:tournament_id>/run/<slug:action>/",
        tournament_actions.tournament_action,
        name="tournament-action",
    ),
    path("staff/machinery/", ops_views.machinery_page, name="machinery"),
    path("staff/machinery/live/", ops_views.machinery_live, name="machinery-live"),
    path("matches/<int:match_id>/", play_views.match_page, name="match"),
    path("games/<int:game_id>/", play_views.replay_page, name="game"),
    path("games/<int:game_id>/log.json", play_views.game_log, name="game-log"),
    path("users/<str:username>/", profile_views.user_page, name="user"),
    path("data/", play_views.data_page, name="data"),
    path("data/<str:name>", play_views.data_file, name="data-file"),
    path("docs/", site_views.docs_index, name="docs"),
    path("docs/starters/<str:name>", site_views.starter, name="starter"),
    path("docs/kit/", site_views.kit_page, name="kit"),
    path("docs/kit/<str:name>", site_views.kit_wheel, name="kit-wheel"),
    path("docs/<slug:slug>/", site_views.doc_page, name="doc"),
    path("favicon.ico", RedirectView.as_view(url=static("arena/favicon.svg"), permanent=False)),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("metrics/", metrics_view, name="metrics"),
    path("api/", include(("league.api.urls", "api"))),
    path("account/tokens/", tokens_page, name="api-tokens"),
    path("notifications/", notification_views.notification_list, name="notifications"),
    path("notifications/read/", notification_views.mark_read, name="notifications-read"),
    path("notifications/badge/", notification_views.badge, name="notification-badge"),
    path("notifications/settings/", notification_views.preferences_page, name="notification-settings"),
    path("notifications/<int:notification_id>/", notification_views.open_notification, name="notification-open"),
]
