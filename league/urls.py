"""URLs of the league server."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path

from league.arena import coop_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("my/bots/", views.my_bots, name="my-bots"),
    path("bots/new/", views.new_bot, name="new-bot"),
    path("bots/<int:bot_id>/", views.bot_page, name="bot"),
    path("bots/<int:bot_id>/versions/", views.bot_versions, name="bot-versions"),
    path("bots/<int:bot_id>/status.json", views.bot_status, name="bot-status"),
    path("bots/<int:bot_id>/upload/", views.new_version, name="new-version"),
    path("ladder/", views.leaderboard, name="ladder-default"),
    path("ladder/<slug:game>/", coop_views.ladder, name="ladder"),
    path("seasons/<int:season_id>/", coop_views.season_page, name="season"),
    path("seasons/<int:season_id>/ladder/<int:players>/", coop_views.season_ladder, name="season-ladder"),
    path("seasons/<int:season_id>/seeds.txt", coop_views.season_seeds_text, name="season-seeds-text"),
    path("seasons/<int:season_id>/seeds.json", coop_views.season_seeds_json, name="season-seeds-json"),
    path("seasons/<int:season_id>/deals/<int:deal>/", coop_views.deal_page, name="season-deal"),
    path("tournaments/", views.tournament_list, name="tournaments"),
    path("tournaments/<int:tournament_id>/", views.tournament_page, name="tournament"),
    path("tournaments/<int:tournament_id>/live/", views.tournament_live, name="tournament-live"),
    path("matches/<int:match_id>/", views.match_page, name="match"),
    path("games/<int:game_id>/log.json", views.game_log, name="game-log"),
    path("admin/", admin.site.urls),
]
