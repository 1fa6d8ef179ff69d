"""Fitting the leaf models (leaf.py) to expert-vs-expert play: `python -m bots.analysis.training`.

    python -m bots.analysis.training generate --game the-game --players 1 --games 300 --out data/tg1.jsonl
    python -m bots.analysis.training fit data/*.jsonl            # rewrites bots/analysis/leaf_models.json

Each generated game starts with a prefix of mixed play (the expert, the greedy and the random house bots, in
proportions drawn per game) up to a random turn, so that the positions cover good, poor and ruined ones alike; from
there the expert plays every seat to the end, as the analysis's rollouts do. Every position of that expert
continuation is labelled with how the game ended. A generated game is stored as one JSON line,
`{"expert_from": T, "log": {...}}` (T the number of turns played before the expert took over, the log a plain game
log), so fitting replays it through the engine and computes whatever features leaf.py defines today.

Fitting: a logistic regression (Newton's method) for the probability of winning, and a least-squares fit of the
cards left at the end (Face to Face: a seat's own, over the positions of the games it lost), each with the ridge
penalty of RIDGES that predicts best in a five-fold cross-validation over whole games (a game's positions are never
split between fitting and checking). It needs numpy, which the league installs; the analysis itself does not.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import games
from bots.analysis import leaf
from bots.analysis.policy import expert_turn_json
from bots.house import load_house_bot
from games import FACE_TO_FACE, GameState, IllegalTurn

# The expert takes over at a turn drawn from 0 .. PREFIX_TURNS[game] - 1: within the mixed games' usual length
# (Face to Face 30 to 55 turns, The Game about 25, Extreme fewer: its commands end poor play early).
PREFIX_TURNS = {FACE_TO_FACE: 45, "the-game": 20, "extreme": 12}
EXPERT_SHARES = (1.0, 1.0, 0.9, 0.7, 0.4, 0.0)  # per game and seat, the share of prefix turns the expert plays
RIDGE = 1e-2
RIDGES = (1e-2, 1.0, 10.0, 100.0, 1000.0)
FOLDS = 5


def generate_game(game: str, players: int, seed: str) -> dict[str, Any]:
    """One game: mixed play up to a random turn, the expert from there: {"expert_from": that turn, "log": its log}."""
    rng = random.Random(seed)
    start_seat = rng.randrange(2) if game == FACE_TO_FACE else None
    state = games.new_game(game, players, seed, start_seat=start_seat)
    others = {"greedy": load_house_bot("greedy"), "random": load_house_bot("random")}
    others["random"].new_game({"game": game, "players": players, "seat": 0, "seed": seed, "options": {}})
    shares = [rng.choice(EXPERT_SHARES) for _ in range(state.players)]
    expert_from = rng.randrange(PREFIX_TURNS[game])
    while state.outcome is None:
        seat = state.to_move
        if state.turn_number >= expert_from or rng.random() < shares[seat]:
            state.push(expert_turn_json(state))
            continue
        bot = others["greedy"] if rng.random() < 0.7 else others["random"]
        try:
            state.push(bot.play(state.observation(seat)))
        except IllegalTurn:  # never expected of the house bots; the expert plays instead
            state.push(expert_turn_json(state))
    return {"expert_from": expert_from, "log": state.log.to_json()}


def labelled_rows(generated: dict[str, Any]) -> Iterator[tuple[list[float], float, float]]:
    """(features, won, cards left at the end) for every position of the expert continuation of a generated game.
    Face to Face gives two rows per position, one from each seat's side, each with that seat's own cards left."""
    log = generated["log"]
    result = log["result"]
    left = _cards_left_at_end(log)
    state = games.position_before(log, 1)
    for number, entry in enumerate(log["turns"]):
        if number >= generated["expert_from"]:
            yield from _rows(state, result, left)
        state.push({"plays": entry["plays"], "signals": entry["signals"]})


def _cards_left_at_end(log: dict[str, Any]) -> list[int]:
    """Face to Face: each seat's cards (hand and draw pile) when the game ended; co-op: the team's, once."""
    end = games.position_before(log, len(log["turns"]) + 1)
    if end.game_id == FACE_TO_FACE:
        return [len(end.hands[seat]) + len(end.draw_piles_reversed[seat]) for seat in (0, 1)]
    return [log["result"]["score"]]


def _rows(state: GameState, result: dict[str, Any], left: list[int]) -> Iterator[tuple[list[float], float, float]]:
    if state.game_id == FACE_TO_FACE:
        for seat in (0, 1):
            yield leaf.face_to_face_features(state, seat), float(result["winner"] == seat), float(left[seat])
    else:
        yield leaf.coop_features(state), float(result["score"] == 0), float(left[0])


def fit_logistic(rows: Any, labels: Any, ridge: float = RIDGE) -> list[float]:
    """Weights of a logistic regression by Newton's method (numpy arrays in, plain floats out)."""
    import numpy as np

    weights = np.zeros(rows.shape[1])
    for _ in range(100):
        p = 1 / (1 + np.exp(-np.clip(rows @ weights, -30, 30)))
        hessian = rows.T @ (rows * (p * (1 - p))[:, None]) + ridge * np.eye(len(weights))
        step = np.linalg.solve(hessian, rows.T @ (p - labels) + ridge * weights)
        weights -= step
        if np.abs(step).max() < 1e-10:
            break
    return [float(w) for w in weights]


def fit_linear(rows: Any, targets: Any, ridge: float = RIDGE) -> list[float]:
    import numpy as np

    gram = rows.T @ rows + ridge * np.eye(rows.shape[1])
    return [float(w) for w in np.linalg.solve(gram, rows.T @ targets)]


def fit_files(paths: list[Path]) -> dict[str, dict[str, Any]]:
    """Fit one model per game and player count found in the generated files."""
    import numpy as np

    grouped: dict[str, list[tuple[list[float], float, float]]] = defaultdict(list)
    games_of: dict[str, list[int]] = defaultdict(list)  # per row, the number of its game
    counts: dict[str, int] = defaultdict(int)
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            generated = json.loads(line)
            log = generated["log"]
            key = leaf.model_key(log["game"], log["options"]["players"])
            rows = list(labelled_rows(generated))
            games_of[key] += [counts[key]] * len(rows)
            counts[key] += 1
            grouped[key].extend(rows)
    models = {}
    for key, rows in sorted(grouped.items()):
        features = np.array([row[0] for row in rows])
        won = np.array([row[1] for row in rows])
        folds = np.array(games_of[key]) % FOLDS
        game = key.split("/")[0]
        ridge, log_loss = best_ridge(features, won, folds, fit_logistic, _log_loss)
        base = _base(won)
        if log_loss < base:
            win = fit_logistic(features, won, ridge)
        else:  # wins too rare to learn from (solo Extreme): the overall rate predicts better
            win = [_logit(float(won.mean())), *[0.0] * (features.shape[1] - 1)]
        entry: dict[str, Any] = {
            "features": list(leaf.expected_features(game)),
            "positions": len(rows),
            "games": counts[key],
            "win": win,
            "win_check": {"ridge": ridge, "log_loss": round(log_loss, 4), "base_log_loss": round(base, 4)},
        }
        cards = np.array([row[2] for row in rows])
        if game == FACE_TO_FACE:  # the cards a seat holds when it loses: leaf.py weighs them by the chance of losing
            lost = won == 0
            features, cards, folds = features[lost], cards[lost], folds[lost]
        ridge, error = best_ridge(features, cards, folds, fit_linear, _squared_error)
        entry["cards"] = fit_linear(features, cards, ridge)
        entry["cards_check"] = {
            "ridge": ridge,
            "rms_error": round(float(np.sqrt(error)), 3),
            "base_rms_error": round(float(cards.std()), 3),
        }
        models[key] = entry
    return models


def best_ridge(features: Any, targets: Any, folds: Any, fit: Any, loss: Any) -> tuple[float, float]:
    """The ridge of RIDGES whose fits predict the held-out games best, and that held-out loss."""
    import numpy as np

    results = []
    for ridge in RIDGES:
        losses = []
        for fold in range(FOLDS):
            held = folds == fold
            if held.all() or not held.any():
                continue
            weights = np.array(fit(features[~held], targets[~held], ridge))
            losses.append(loss(features[held] @ weights, targets[held]))
        results.append((float(np.mean(losses)) if losses else 0.0, ridge))
    error, ridge = min(results)
    return ridge, error


def _log_loss(scores: Any, won: Any) -> float:
    import numpy as np

    p = np.clip(1 / (1 + np.exp(-np.clip(scores, -30, 30))), 1e-6, 1 - 1e-6)
    return float(-np.mean(won * np.log(p) + (1 - won) * np.log(1 - p)))


def _squared_error(predicted: Any, actual: Any) -> float:
    import numpy as np

    return float(np.mean((predicted - actual) ** 2))


def _base(won: Any) -> float:
    """The log loss of always saying the overall win rate."""
    import numpy as np

    return _log_loss(np.full(len(won), _logit(float(won.mean()))), won)


def _logit(rate: float) -> float:
    rate = min(max(rate, 1e-6), 1 - 1e-6)
    return math.log(rate / (1 - rate))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.analysis.training", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    generate = commands.add_parser("generate", help="play games and write their logs, one JSON line each")
    generate.add_argument("--game", required=True, choices=games.GAME_IDS)
    generate.add_argument("--players", type=int, default=None)
    generate.add_argument("--games", type=int, required=True)
    generate.add_argument("--seed", default="leaf")
    generate.add_argument("--first", type=int, default=0, help="number of the first game (to split a run)")
    generate.add_argument("--out", type=Path, required=True)
    fit = commands.add_parser("fit", help="fit the models to generated games and write leaf_models.json")
    fit.add_argument("files", nargs="+", type=Path)
    fit.add_argument("--out", type=Path, default=leaf.MODELS_FILE)
    args = parser.parse_args(argv)
    if args.command == "generate":
        players = 2 if args.game == FACE_TO_FACE else args.players or 1
        with args.out.open("a", encoding="utf-8") as out:
            for number in range(args.first, args.first + args.games):
                generated = generate_game(args.game, players, f"{args.seed}:{args.game}:{players}:{number}")
                out.write(json.dumps(generated, separators=(",", ":")) + "\n")
                out.flush()
        return 0
    models = fit_files(args.files)
    if args.out.exists():
        kept = json.loads(args.out.read_text(encoding="utf-8"))["models"]
        models = {**kept, **models}
    document = {"about": "leaf models of bots/analysis; refit with python -m bots.analysis.training", "models": models}
    args.out.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    for key, entry in sorted(models.items()):
        checks = {name: entry[name] for name in ("win_check", "cards_check") if name in entry}
        print(f"{key}: {entry['positions']} positions, {checks}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
