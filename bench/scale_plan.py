"""The league bench/scale.py stores: every row of every table, planned as columns before anything is copied.

A seeded plan (same arguments, same league): a few hundred owners, their bots (Face to Face mostly, some
co-op), several versions per bot (some failed their validation), a validation match per uploaded version,
ladder matches of the ladder's size, a 100-entry double round robin and a scheduled tournament. Every game
takes a log from the pool (scale_logs) whose ending fits the game: stronger versions win more often, so the
ratings have something to find, and a failed version's validation games are crashes in its own seat.

Columns are keyed by the model field's attname; scale_copy fills the fields a plan leaves out from their
defaults and refuses a required field nobody planned.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import combinations
from typing import Any

import numpy as np

from bench.scale_logs import FACE_TO_FACE, LogBins, PooledLog
from bots.match import BotSpec, MatchSpec, seating

GAMES = (FACE_TO_FACE, "the-game", "extreme")
HOUSE_STRENGTH = {"random": 1150.0, "greedy": 1500.0, "expert": 1850.0}
SYLLABLES = ("ka", "lo", "mi", "ren", "to", "sa", "vi", "dor", "el", "na", "quo", "zu", "bri", "fen", "gal", "ix")
BIG_TOURNAMENT_ENTRIES = 100
TOURNAMENT_SHARE = 0.1  # of all games, as the measurements had it (99,000 of 1,000,000)


@dataclass
class Table:
    """Rows of one model as columns: attname -> list (one value per row) or a scalar (the same for every row)."""

    rows: int
    columns: dict[str, Any] = field(default_factory=dict)


@dataclass
class Plan:
    tables: dict[str, Table]  # model label ("arena.Game", "auth.User") -> rows
    summary: dict[str, int]
    busiest_bot: int
    big_tournament: int
    sample_match: int
    sample_game: int


def _names(rng: np.random.Generator, count: int) -> list[str]:
    picks = rng.integers(0, len(SYLLABLES), size=(count, 3))
    return [f"{''.join(SYLLABLES[k] for k in row)}{index}" for index, row in enumerate(picks)]


def _upload(rng: np.random.Generator, bot_name: str, number: int, kind: str) -> bytes:
    """A plausible bot source of a few kilobytes (the issue's 8.8 MB per 1,000 versions), zipped for zip uploads."""
    weights = ", ".join(f"{w:.4f}" for w in rng.random(40))
    body = (
        f'"""{bot_name} v{number}: plays the lowest card that keeps a pile open."""\n\n'
        f"WEIGHTS = [{weights}]\n\n"
        "def new_game(info):\n    global SEAT\n    SEAT = info.get('seat')\n\n"
        "def play(observation):\n    hand = sorted(observation['hand'])\n"
        "    return {'plays': [[hand[0], 0]], 'signals': []}\n"
    )
    source = (
        body + "\n# " + "-" * 76 + "\n" + "\n".join(f"# tuning note {k}: {w}" for k, w in enumerate(weights.split(",")))
    ) * 4
    data = source.encode()
    if kind == "py":
        return data
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bot.py", data)
    return buffer.getvalue()


class Planner:
    def __init__(self, bots: int, games: int, seed: int, now: datetime, settings: Any, house_sha256: Any) -> None:
        self.rng = np.random.default_rng(seed)
        self.bots = bots
        self.games = games
        self.now = now
        self.start = now - timedelta(days=365)
        self.settings = settings
        self.house_sha256 = house_sha256
        self.tables: dict[str, Table] = {}
        self._seat_orders: dict[tuple[str, bool, int, int], list[int]] = {}

    def moment(self, fraction: np.ndarray | float) -> Any:
        return self.start + (self.now - self.start) * fraction

    def moments(self, fractions: np.ndarray) -> list[datetime]:
        span = (self.now - self.start).total_seconds()
        return [self.start + timedelta(seconds=float(s)) for s in fractions * span]

    # --- people, bots and versions -------------------------------------------------------------
    def people_and_bots(self) -> None:
        rng = self.rng
        owners = max(2, round(self.bots * 0.3))
        names = _names(rng, owners)
        joined = self.moments(np.sort(rng.random(owners)) * 0.5)
        self.house_user = owners + 1
        self.tables["auth.User"] = Table(
            owners + 1,
            {
                "id": list(range(1, owners + 2)),
                "username": names + ["house"],
                "email": [f"{n}@example.org" for n in names] + [""],
                "password": "!unusable-scale-bench",  # Django's mark for "no password can log in"
                "is_active": [True] * owners + [False],
                "date_joined": joined + [self.start],
            },
        )
        from bots.house import HOUSE_BOTS

        bot_rows: list[dict[str, Any]] = []
        self.house_version: dict[tuple[str, str], int] = {}
        for game in GAMES:
            for name in sorted(HOUSE_BOTS):
                bot_rows.append(
                    {
                        "owner_id": self.house_user,
                        "name": name if game == FACE_TO_FACE else f"{name}-{game}",
                        "game": game,
                        "house_ref": f"house:{name}",
                        "description": f"The house bot house:{name}.",
                        "created": self.start,
                        "strength": HOUSE_STRENGTH.get(name, 1500.0),
                        "house": name,
                    }
                )
        popularity = 1.0 / np.arange(1, owners + 1) ** 0.8
        owner_of = rng.choice(owners, size=self.bots, p=popularity / popularity.sum()) + 1
        kinds = rng.choice(len(GAMES), size=self.bots, p=[0.9, 0.06, 0.04])
        kinds[:2] = 0  # a ladder needs two Face to Face bots even in the smallest run
        created = np.sort(rng.random(self.bots)) * 0.6
        strength = rng.normal(1500.0, 220.0, size=self.bots)
        for index, bot_name in enumerate(_names(rng, self.bots)):
            bot_rows.append(
                {
                    "owner_id": int(owner_of[index]),
                    "name": bot_name,
                    "game": GAMES[kinds[index]],
                    "house_ref": "",
                    "description": f"{bot_name}: a bot for the scale bench." if index % 3 else "",
                    "created": self.moment(float(created[index])),
                    "strength": float(strength[index]),
                    "house": None,
                }
            )
        self.bot_rows = bot_rows
        self.versions()

    def versions(self) -> None:
        rng = self.rng
        rows: list[dict[str, Any]] = []
        for bot_id, bot in enumerate(self.bot_rows, start=1):
            bot["id"] = bot_id
            bot["active"] = []
            if bot["house"] is not None:
                count = 1
            else:
                count = 1 + min(5, int(rng.poisson(1.3)))
            born = (bot["created"] - self.start) / (self.now - self.start)
            stamps = np.sort(born + rng.random(count) * (1.0 - born) * 0.5)
            for number in range(1, count + 1):
                newest = number == count
                failed = bot["house"] is None and rng.random() < (0.05 if newest else 0.2)
                kind = "house" if bot["house"] else ("zip" if rng.random() < 0.1 else "py")
                if kind == "house":
                    content, sha = b"", self.house_sha256(bot["house"])
                else:
                    content = _upload(rng, bot["name"], number, kind)
                    sha = hashlib.sha256(content).hexdigest()
                version = {
                    "id": len(rows) + 1,
                    "bot_id": bot_id,
                    "number": number,
                    "sha256": sha,
                    "kind": kind,
                    "filename": bot["house_ref"] if kind == "house" else f"{bot['name']}.{kind}",
                    "size": len(content),
                    "content": content,
                    "status": "failed" if failed else "active",
                    "created": self.moment(float(stamps[number - 1])),
                    "strength": bot["strength"] + 40.0 * (number - 1) + rng.normal(0, 30.0),
                    "game": bot["game"],
                }
                rows.append(version)
                if not failed:
                    bot["active"].append(version["id"])
            if bot["house"]:
                self.house_version[(bot["game"], bot["house"])] = rows[-1]["id"]
        self.version_rows = rows

    # --- matches -------------------------------------------------------------------------------
    def seat_order(self, game: str, duplicate: bool, games: int, index: int) -> list[int]:
        key = (game, duplicate, games, index)
        if key not in self._seat_orders:
            spec = MatchSpec(game=game, bots=[BotSpec("a"), BotSpec("b")], games=games, duplicate=duplicate, players=2)
            self._seat_orders[key] = seating(spec, index)[1]
        return self._seat_orders[key]

    def matches(self) -> None:
        ladder_games = self.settings.ARENA_LADDER_GAMES
        validation_games = self.settings.ARENA_VALIDATION_GAMES
        self.match_rows: list[dict[str, Any]] = []
        for version in self.version_rows:
            if version["kind"] == "house":
                continue
            for ref in self.settings.ARENA_VALIDATION_OPPONENTS:  # one match against each, as the league queues them
                opponent = self.house_version[(version["game"], ref.split(":")[1])]
                self.match_rows.append(
                    {
                        "kind": "validation",
                        "game": version["game"],
                        "tournament_id": None,
                        "games": validation_games,
                        "players": 2,
                        "seed": f"validate-{version['sha256'][:16]}-{ref}",
                        "duplicate": True,
                        "rated": False,
                        "entries": (version["id"], opponent),
                        "when": (version["created"] - self.start) / (self.now - self.start) + 1e-6,
                        "crash": version["status"] == "failed",
                    }
                )
        used = sum(row["games"] for row in self.match_rows)
        self.big_tournament_rows(max(0, self.games - used))
        used = sum(row["games"] for row in self.match_rows)
        self.ladder_rows(max(0, self.games - used), ladder_games)
        self.match_rows.sort(key=lambda row: row["when"])
        for match_id, row in enumerate(self.match_rows, start=1):
            row["id"] = match_id

    def ladder_members(self) -> list[dict[str, Any]]:
        return [bot for bot in self.bot_rows if bot["game"] == FACE_TO_FACE and bot["active"]]

    def big_tournament_rows(self, budget: int) -> None:
        members = self.ladder_members()
        entrants = sorted(members, key=lambda bot: -bot["strength"])[:BIG_TOURNAMENT_ENTRIES]
        while len(entrants) > 2 and len(entrants) * (len(entrants) - 1) > max(2, budget // 2):
            entrants = entrants[:-1]
        pairings = len(entrants) * (len(entrants) - 1)  # double round robin
        per_pairing = int(max(1, min(self.settings.ARENA_LADDER_GAMES, TOURNAMENT_SHARE * self.games // pairings)))
        self.tournament = {
            "id": 1,
            "name": f"Autumn Open ({len(entrants)} bots)",
            "format": "double-round-robin",
            "games_per_pairing": per_pairing,
            "entrants": entrants,
        }
        begin = 0.9
        for round_index in range(2):
            for first, second in combinations(entrants, 2):
                a, b = (first, second) if round_index == 0 else (second, first)
                va, vb = a["active"][-1], b["active"][-1]
                sha_a = self.version_rows[va - 1]["sha256"][:12]
                sha_b = self.version_rows[vb - 1]["sha256"][:12]
                self.match_rows.append(
                    {
                        "kind": "tournament",
                        "game": FACE_TO_FACE,
                        "tournament_id": 1,
                        "games": per_pairing,
                        "players": None,
                        "seed": f"tournament-1-{sha_a}-{sha_b}-{round_index}",
                        "duplicate": True,
                        "rated": True,
                        "entries": (va, vb),
                        "when": begin + 0.02 * float(self.rng.random()),
                        "crash": False,
                    }
                )

    def ladder_rows(self, budget: int, per_match: int) -> None:
        members = self.ladder_members()
        if budget <= 0 or len(members) < 2:
            return
        # The scheduler pairs the member with the fewest games first, so a bot's share of the ladder follows its
        # time on it (an old bot has played the most), give or take the matches it sat out while busy.
        joined = np.array([(bot["created"] - self.start) / (self.now - self.start) for bot in members])
        activity = (1.0 - joined) * self.rng.lognormal(0.0, 0.3, size=len(members))
        weights = activity / activity.sum()
        count = -(-budget // per_match)
        first = self.rng.choice(len(members), size=count, p=weights)
        second = self.rng.choice(len(members), size=count, p=weights)
        clash = first == second
        second[clash] = (second[clash] + 1 + self.rng.integers(0, len(members) - 1, size=int(clash.sum()))) % len(
            members
        )
        newest = self.rng.random(count) < 0.7
        pick = self.rng.random(count)
        when = np.sort(0.05 + 0.95 * self.rng.random(count))
        left = budget
        for k in range(count):
            a, b = members[first[k]], members[second[k]]
            versions = []
            for bot in (a, b):
                active = bot["active"]
                versions.append(active[-1] if newest[k] else active[int(pick[k] * len(active))])
            games = min(per_match, left)
            left -= games
            self.match_rows.append(
                {
                    "kind": "ladder",
                    "game": FACE_TO_FACE,
                    "tournament_id": None,
                    "games": games,
                    "players": None,
                    "seed": f"ladder-{self.rng.bytes(8).hex()}",
                    "duplicate": True,
                    "rated": True,
                    "entries": tuple(versions),
                    "when": float(when[k]),
                    "crash": False,
                }
            )

    # --- games ---------------------------------------------------------------------------------
    def games_and_seats(self, bins: LogBins) -> None:
        rng = self.rng
        strength = np.array([v["strength"] for v in self.version_rows])
        logs = bins.logs
        log_ids: list[int] = []
        game_match: list[int] = []
        game_index: list[int] = []
        seat_versions: list[int] = []
        seat_points: list[float | None] = []
        for match in self.match_rows:
            a, b = match["entries"]
            p_first = 1.0 / (1.0 + 10.0 ** ((strength[b - 1] - strength[a - 1]) / 400.0))
            draws = rng.random(match["games"])
            picks = rng.random(match["games"])
            for index in range(match["games"]):
                order = self.seat_order(match["game"], match["duplicate"], match["games"], index)
                if match["crash"]:
                    key = (match["game"], True, order.index(0))
                elif match["game"] == FACE_TO_FACE:
                    winner_entry = 0 if draws[index] < p_first else 1
                    key = (FACE_TO_FACE, False, order.index(winner_entry))
                else:
                    key = (match["game"], False, None)
                choices = bins.bin(*key)
                log_id = choices[int(picks[index] * len(choices))]
                log_ids.append(log_id)
                game_match.append(match["id"])
                game_index.append(index)
                winner = logs[log_id].winner_seat
                for seat in range(2):
                    seat_versions.append(match["entries"][order[seat]])
                    if match["game"] != FACE_TO_FACE:
                        seat_points.append(None)
                    else:
                        seat_points.append(0.5 if winner is None else float(seat == winner))
        self.log_ids = log_ids
        self.game_match = game_match
        self.game_index = game_index
        self.seat_versions = seat_versions
        self.seat_points = seat_points

    # --- the tables ----------------------------------------------------------------------------
    def plan(self, bins: LogBins) -> Plan:
        self.people_and_bots()
        self.matches()
        self.logs = bins.logs
        self.games_and_seats(bins)
        self.bot_table()
        self.match_tables()
        self.version_table()
        self.tournament_tables()
        self.game_tables(bins)
        self.pair_results()
        self.seat_results()
        sample_match = next(
            (m["id"] for m in reversed(self.match_rows) if m["kind"] == "ladder"), self.match_rows[-1]["id"]
        )
        return Plan(
            tables=self.tables,
            summary={label: table.rows for label, table in self.tables.items()},
            busiest_bot=self.busiest_bot(),
            big_tournament=1,
            sample_match=sample_match,
            sample_game=self.game_match.index(sample_match) + 1,
        )

    def busiest_bot(self) -> int:
        played = np.bincount(np.array(self.seat_versions), minlength=len(self.version_rows) + 1)
        per_bot: dict[int, int] = {}
        for version in self.version_rows:
            if version["kind"] != "house":
                per_bot[version["bot_id"]] = per_bot.get(version["bot_id"], 0) + int(played[version["id"]])
        return max(per_bot, key=per_bot.get)

    def bot_table(self) -> None:
        rows = self.bot_rows
        columns = {key: [bot[key] for bot in rows] for key in ("id", "owner_id", "name", "game", "house_ref")}
        columns["description"] = [bot["description"] for bot in rows]
        columns["created"] = [bot["created"] for bot in rows]
        columns["active_version_id"] = [bot["active"][-1] if bot["active"] else None for bot in rows]
        self.tables["arena.Bot"] = Table(len(rows), columns)

    def match_tables(self) -> None:
        rows = self.match_rows
        created = [self.moment(row["when"]) for row in rows]
        started = [moment + timedelta(seconds=2) for moment in created]
        finished = [
            moment + timedelta(seconds=0.05 * row["games"] + 0.2) for moment, row in zip(started, rows, strict=True)
        ]
        self.match_finished = finished
        columns: dict[str, Any] = {
            key: [row[key] for row in rows]
            for key in ("id", "kind", "game", "tournament_id", "games", "players", "seed", "duplicate", "rated")
        }
        columns.update(
            status="done",
            claimed_by="scale-worker:1",
            attempts=1,
            failures=0,
            games_done=columns["games"],
            error="",
            created=created,
            queued_at=created,
            started_at=started,
            heartbeat_at=finished,
            finished_at=finished,
            turn_seconds=self.settings.ARENA_TURN_SECONDS,
            bank_seconds=self.settings.ARENA_BANK_SECONDS,
            startup_seconds=self.settings.ARENA_STARTUP_SECONDS,
        )
        self.tables["arena.Match"] = Table(len(rows), columns)
        entry_match, entry_index, entry_version = [], [], []
        for row in rows:
            for index, version in enumerate(row["entries"]):
                entry_match.append(row["id"])
                entry_index.append(index)
                entry_version.append(version)
        self.tables["arena.MatchEntry"] = Table(
            len(entry_match),
            {
                "id": list(range(1, len(entry_match) + 1)),
                "match_id": entry_match,
                "index": entry_index,
                "version_id": entry_version,
                "stderr_tail": "",
                **self.entry_results(),
            },
        )

    def entry_results(self) -> dict[str, list]:
        """Each entry's games, wins, losses, draws and points in its match, as results.save_games counts them."""
        games = np.zeros((len(self.match_rows), 2), dtype=np.int64)
        wins = np.zeros_like(games)
        losses = np.zeros_like(games)
        draws = np.zeros_like(games)
        points = np.zeros((len(self.match_rows), 2))
        rows = {row["id"]: row for row in self.match_rows}
        for game, (match_id, index) in enumerate(zip(self.game_match, self.game_index, strict=True)):
            row = rows[match_id]
            order = self.seat_order(row["game"], row["duplicate"], row["games"], index)
            for seat in range(2):
                entry = order[seat]
                games[match_id - 1, entry] += 1
                result = self.seat_points[2 * game + seat]
                if result is None:
                    continue
                points[match_id - 1, entry] += result
                wins[match_id - 1, entry] += result == 1.0
                losses[match_id - 1, entry] += result == 0.0
                draws[match_id - 1, entry] += result == 0.5
        return {
            "games": games.ravel().tolist(),
            "wins": wins.ravel().tolist(),
            "losses": losses.ravel().tolist(),
            "draws": draws.ravel().tolist(),
            "points": points.ravel().tolist(),
        }

    def pair_results(self) -> None:
        """Rated Face to Face games per pair of versions (lower id first), as results.add_to_pairs counts them."""
        rows = {row["id"]: row for row in self.match_rows}
        counts: dict[tuple[int, int], list] = {}
        for game, match_id in enumerate(self.game_match):
            row = rows[match_id]
            if not row["rated"] or row["game"] != FACE_TO_FACE:
                continue
            seat0, seat1 = self.seat_versions[2 * game], self.seat_versions[2 * game + 1]
            winner = self.logs[self.log_ids[game]].winner_seat
            swapped = seat0 > seat1
            cell = counts.setdefault((min(seat0, seat1), max(seat0, seat1)), [0, 0, 0, None])
            cell[2 if winner is None else winner ^ swapped] += 1
            played = self.match_finished[match_id - 1]
            if cell[3] is None or played > cell[3]:
                cell[3] = played
        keys = sorted(counts)
        self.tables["arena.PairResult"] = Table(
            len(keys),
            {
                "id": list(range(1, len(keys) + 1)),
                "game": FACE_TO_FACE,
                "first_id": [first for first, _ in keys],
                "second_id": [second for _, second in keys],
                "first_wins": [counts[key][0] for key in keys],
                "second_wins": [counts[key][1] for key in keys],
                "draws": [counts[key][2] for key in keys],
                "last_played": [counts[key][3] for key in keys],
            },
        )

    def seat_results(self) -> None:
        """Competitive games per (version, seat) outside validations, as results.add_to_seats counts them."""
        rows = {row["id"]: row for row in self.match_rows}
        counts: dict[tuple[int, int], list[int]] = {}
        for game, match_id in enumerate(self.game_match):
            row = rows[match_id]
            if row["kind"] == "validation" or row["game"] != FACE_TO_FACE:
                continue
            for seat in range(2):
                cell = counts.setdefault((self.seat_versions[2 * game + seat], seat), [0, 0, 0, 0])
                cell[0] += 1
                cell[{1.0: 1, 0.0: 2, 0.5: 3}[self.seat_points[2 * game + seat]]] += 1
        keys = sorted(counts)
        self.tables["arena.SeatResult"] = Table(
            len(keys),
            {
                "id": list(range(1, len(keys) + 1)),
                "version_id": [version for version, _ in keys],
                "seat": [seat for _, seat in keys],
                "games": [counts[key][0] for key in keys],
                "wins": [counts[key][1] for key in keys],
                "losses": [counts[key][2] for key in keys],
                "draws": [counts[key][3] for key in keys],
            },
        )

    def version_table(self) -> None:
        rows = self.version_rows
        validated = {
            row["entries"][0]: (row, self.match_finished[row["id"] - 1])
            for row in self.match_rows
            if row["kind"] == "validation"
        }
        reasons, tails, stamps = [], [], []
        for version in rows:
            match, finished = validated.get(version["id"], (None, version["created"]))
            stamps.append(finished)
            if version["status"] == "failed":
                reasons.append("game 1: crash: play raised RuntimeError('a bot that crashes on its first turn')")
                tails.append("Traceback (most recent call last):\nRuntimeError: a bot that crashes on its first turn\n")
            else:
                reasons.append("")
                tails.append("")
        columns = {
            key: [version[key] for version in rows]
            for key in ("id", "bot_id", "number", "sha256", "kind", "filename", "size", "status", "created")
        }
        columns.update(failure_reason=reasons, stderr_tail=tails, validated_at=stamps)
        self.tables["arena.BotVersion"] = Table(len(rows), columns)
        uploaded = [version for version in rows if version["kind"] != "house"]  # house bots ship with the runner
        self.tables["arena.BotUpload"] = Table(
            len(uploaded),
            {"version_id": [v["id"] for v in uploaded], "content": [v["content"] for v in uploaded]},
        )

    def tournament_tables(self) -> None:
        big = self.tournament
        ids = [row["id"] for row in self.match_rows if row["tournament_id"] == 1]
        first = min((self.match_rows[i - 1]["when"] for i in ids), default=0.9)
        started = self.moment(first) - timedelta(minutes=1)
        finished = max((self.match_finished[i - 1] for i in ids), default=started)
        upcoming = sorted(self.ladder_members(), key=lambda bot: bot["id"])[:8]
        self.tables["arena.Tournament"] = Table(
            2,
            {
                "id": [1, 2],
                "name": [big["name"], "Winter Cup"],
                "game": FACE_TO_FACE,
                "format": [big["format"], "round-robin"],
                "games_per_pairing": [big["games_per_pairing"], 10],
                "status": ["finished", "draft"],
                "created": [started - timedelta(days=7), self.now - timedelta(days=1)],
                "scheduled_at": [started, self.now + timedelta(days=14)],
                "started_at": [started, None],
                "finished_at": [finished, None],
            },
        )
        entrants = big["entrants"]
        self.tables["arena.TournamentEntry"] = Table(
            len(entrants) + len(upcoming),
            {
                "id": list(range(1, len(entrants) + len(upcoming) + 1)),
                "tournament_id": [1] * len(entrants) + [2] * len(upcoming),
                "bot_id": [bot["id"] for bot in entrants] + [bot["id"] for bot in upcoming],
                "version_id": [bot["active"][-1] for bot in entrants] + [None] * len(upcoming),
            },
        )

    def seals(self, picked: list[PooledLog], kinds: dict[int, str]) -> list[bytes]:
        """Each game's seal, as the store path writes it (the pool's logs are genuine: the engine played them)."""
        from league.arena.play import seals

        key = seals.keys()[0]
        return [
            seals.seal(m, index, kinds[m], log.termination, log.winner_seat, log.score, log.log_zlib, key=key)
            for m, index, log in zip(self.game_match, self.game_index, picked, strict=True)
        ]

    def game_tables(self, bins: LogBins) -> None:
        logs = bins.logs
        picked = [logs[k] for k in self.log_ids]
        kinds = {row["id"]: row["game"] for row in self.match_rows}
        count = len(picked)
        self.tables["arena.Game"] = Table(
            count,
            {
                "id": list(range(1, count + 1)),
                "match_id": self.game_match,
                "index": self.game_index,
                "game": [kinds[m] for m in self.game_match],
                "seed": [log.seed for log in picked],
                "start_seat": [log.start_seat for log in picked],
                "termination": [log.termination for log in picked],
                "winner_seat": [log.winner_seat for log in picked],
                "fault_seat": [log.fault_seat for log in picked],
                "score": [log.score for log in picked],
                "detail": [log.detail for log in picked],
                "turns": [log.turns for log in picked],
                "log_zlib": [log.log_zlib for log in picked],
                "log_seal": self.seals(picked, kinds),
                "played_at": [self.match_finished[m - 1] for m in self.game_match],
            },
        )
        self.tables["arena.GameSeat"] = Table(
            2 * count,
            {
                "id": list(range(1, 2 * count + 1)),
                "game_id": [game for game in range(1, count + 1) for _seat in range(2)],
                "seat": [0, 1] * count,
                "version_id": self.seat_versions,
                "points": self.seat_points,
            },
        )
