"""A match's page, a game's log and the replay viewer (a game's log, verified by the engine, shown turn by turn and
play by play); validation matches are private to the candidate's owner."""

from __future__ import annotations

from django.db.models import Prefetch
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render

from league.arena.models import (
    GAME_NAMES,
    Game,
    GameOutput,
    GameSeat,
    LogTampered,
    Match,
    MatchEntry,
)
from league.arena.play import archives, wording
from league.arena.play.replay_data import SeatLabel, viewer_data
from league.arena.web.pagination import paginate

GAMES_PER_PAGE = 100


def _entries_with_bots() -> Prefetch:
    return Prefetch("entries", queryset=MatchEntry.objects.select_related("version__bot__owner").order_by("index"))


def _require_visible(request: HttpRequest, match: Match) -> None:
    """A validation match is private to the candidate's owner (its details may quote the bot's errors)."""
    if match.kind == Match.Kind.VALIDATION and not request.user.is_staff:
        candidate_owner = match.entries.filter(index=0).values_list("version__bot__owner_id", flat=True).first()
        if candidate_owner != request.user.pk:
            raise Http404("no such match")


def _visible_match(request: HttpRequest, match_id: int) -> Match:
    match = get_object_or_404(Match, pk=match_id)
    _require_visible(request, match)
    return match


def match_page(request: HttpRequest, match_id: int) -> HttpResponse:
    shown = Match.objects.select_related("tournament").prefetch_related(_entries_with_bots())
    match = get_object_or_404(shown, pk=match_id)
    _require_visible(request, match)
    entries = list(match.entries.all())
    names = {entry.version_id: entry.version.bot.full_name for entry in entries}
    played = match.played_games.defer("log_zlib", "detail").prefetch_related("seats").order_by("index")
    page = paginate(request, played, GAMES_PER_PAGE)
    games = []
    for game in page:
        seated = [names.get(seat.version_id, "?") for seat in game.seats.all()]
        result = wording.game_result(game.termination, game.winner_seat, game.fault_seat, game.score, seated)
        games.append((game, seated, result))
    context = {"match": match, "entries": entries, "page": page, "games": games}
    if len(entries) == 2 and any(entry.games for entry in entries):
        first, second = entries
        context["score"] = (first, f"{wording.points(first.points)} – {wording.points(second.points)}", second)
    return render(request, "arena/match.html", context)


def game_log(request: HttpRequest, game_id: int) -> JsonResponse:
    """The game's log, re-verified by the engine on every read."""
    game = get_object_or_404(Game, pk=game_id)
    _visible_match(request, game.match_id)
    try:
        log = game.verified_log()
    except LogTampered as error:
        return JsonResponse({"error": str(error)}, status=409)
    return JsonResponse(log)


def replay_page(request: HttpRequest, game_id: int) -> HttpResponse:
    game = get_object_or_404(Game.objects.select_related("match__tournament"), pk=game_id)
    _require_visible(request, game.match)
    context = {"game": game, "match": game.match, "game_name": GAME_NAMES.get(game.game, game.game)}
    try:
        log = game.verified_log()
    except LogTampered as error:
        return render(request, "arena/replay_error.html", {**context, "error": str(error)}, status=409)
    rows = list(GameSeat.objects.filter(game=game).select_related("version__bot__owner").order_by("seat"))
    context["data"] = viewer_data(log, _seat_labels(rows))
    context["output"] = visible_output(request, game, rows)
    context["log_name"] = f"game-{game.pk}.json"
    return render(request, "arena/replay.html", context)


def _seat_labels(rows: list[GameSeat]) -> list[SeatLabel]:
    """Each seat's bot as the database knows it (the log carries only the names it was played under)."""
    return [
        {
            "name": row.version.bot.full_name,
            "version": row.version.label,
            "url": row.version.bot.get_absolute_url(),
            "file": row.version.bot.house_ref or f"{row.version.bot.name}.py",
        }
        for row in rows
    ]


def visible_output(request: HttpRequest, game: Game, rows: list[GameSeat]) -> dict[str, list[dict]]:
    """What the bots this visitor may see wrote in each turn, by turn number ("0": the set-up): a bot's own owner
    sees it, everyone does when the owner made it public (`Bot.output_public`); nobody else, staff included."""
    user = request.user
    shown = {
        row.seat
        for row in rows
        if row.version.bot.output_public or (user.is_authenticated and row.version.bot.owner_id == user.pk)
    }
    if not shown:
        return {}
    stored = GameOutput.objects.filter(game=game).first()
    if stored is None:
        return {}
    by_turn: dict[str, list[dict]] = {}
    for record in stored.records():
        if record["seat"] in shown:
            kept = {key: record.get(key) for key in ("seat", "ms", "stderr", "dropped") if key in record}
            by_turn.setdefault(str(record["turn"]), []).append(kept)
    return by_turn


def data_page(request: HttpRequest) -> HttpResponse:
    """The public games as monthly archives, with their sizes and checksums."""
    listed = archives.archives()
    context = {"archives": listed, "through": archives.exported_through(), "games": sum(a.games for a in listed)}
    return render(request, "arena/data.html", context)


def data_file(request: HttpRequest, name: str) -> FileResponse:
    path = archives.archive_path(name)
    if path is None:
        raise Http404(f"no archive called {name}")
    return FileResponse(open(path, "rb"), as_attachment=True, filename=name, content_type="application/gzip")
