from django.apps import AppConfig


class ArenaConfig(AppConfig):
    name = "league.arena"
    label = "arena"
    verbose_name = "Arena"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Connects every signal handler in every process, workers included: the page cache drops what the league's
        # change signals name; a finished validation releases its owner's next; a changed leaderboard fills the ladder's
        # free places; each domain that follows a stored or failed match (play/events.py) hooks in, the owners'
        # automatic analyses too; and the match tallies are recounted after a flush.
        from league.arena.analysis import automatic  # noqa: F401
        from league.arena.coop import results  # noqa: F401
        from league.arena.ladder import forfeits, refits, scheduling  # noqa: F401
        from league.arena.lib import caching  # noqa: F401
        from league.arena.ops import tallies  # noqa: F401
        from league.arena.scrims import requests  # noqa: F401
        from league.arena.tournaments import starting  # noqa: F401
        from league.arena.uploads import validation  # noqa: F401
        from league.arena.versiontests import running  # noqa: F401
