from django.apps import AppConfig


class ArenaConfig(AppConfig):
    name = "league.arena"
    label = "arena"
    verbose_name = "Arena"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Connects the page cache to the league's change signals in every process, workers included:
        # they send the signals, so they must mark the cached pages stale.
        # Queues a user's next waiting validation when one of theirs finishes.
        from league.arena.lib import caching  # noqa: F401
        from league.arena.uploads import validation as validations  # noqa: F401
