"""The match runner: seating, duplicate deals, and every way a bot can fail ending the game with its reason."""

import json
import textwrap

import pytest

import games
from bots.match import BotSpec, GameResult, MatchSpec, TimeControl, mirror_starts, run_match, seating
from games import Termination


def write_bot(tmp_path, name, body):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(body))
    return str(path)


def unsandboxed(game, refs, **kwargs):
    return MatchSpec(game, [BotSpec(ref) for ref in refs], sandbox=False, **kwargs)


def test_it_alternates_seats_between_games():
    spec = MatchSpec("face-to-face", [BotSpec("house:greedy"), BotSpec("house:random")], games=4)
    assert [seating(spec, i) for i in range(4)] == [(0, [0, 1]), (1, [1, 0]), (2, [0, 1]), (3, [1, 0])]


def test_it_plays_each_deal_twice_with_seats_swapped_when_duplicate():
    spec = MatchSpec(
        "face-to-face", [BotSpec("house:greedy"), BotSpec("house:random")], games=4, duplicate=True, seed="dup"
    )
    result = run_match(spec)
    assert [(game.deal, game.seat_bots) for game in result.games] == [
        (0, [0, 1]),
        (1, [0, 1]),
        (0, [1, 0]),
        (1, [1, 0]),
    ]
    first, mirrored = result.games[0], result.games[2]
    assert first.log["decks"] == mirrored.log["decks"]
    assert [seat["bot"] for seat in mirrored.log["seats"]] == ["house:random", "house:greedy"]
    assert result.games[1].log["decks"] != first.log["decks"]


def test_an_odd_duplicate_match_plays_its_last_deal_once():
    spec = MatchSpec("face-to-face", [BotSpec("a"), BotSpec("b")], games=5, duplicate=True)
    assert [seating(spec, i) for i in range(5)] == [(0, [0, 1]), (1, [0, 1]), (0, [1, 0]), (1, [1, 0]), (2, [0, 1])]
    assert mirror_starts(spec) == {2} and mirror_starts(MatchSpec("face-to-face", spec.bots, games=5)) == set()
    single = MatchSpec("face-to-face", spec.bots, games=1, duplicate=True)
    assert seating(single, 0) == (0, [0, 1]) and mirror_starts(single) == set()


def test_a_duplicate_match_in_blocks_ends_each_block_with_whole_pairs():
    spec = MatchSpec("face-to-face", [BotSpec("a"), BotSpec("b")], games=7, duplicate=True, duplicate_block=2)
    deals = [seating(spec, i) for i in range(7)]
    assert [deal for deal, _ in deals] == [0, 1, 0, 1, 2, 2, 3]
    assert [order for _, order in deals] == [[0, 1], [0, 1], [1, 0], [1, 0], [0, 1], [1, 0], [0, 1]]
    assert mirror_starts(spec) == {2, 5}


def test_a_bot_plays_no_deal_remembering_its_other_side(tmp_path):
    """Module globals last the match, but a duplicate match starts its bots afresh before it replays its deals from
    the other seats: a bot counting the games it remembers forgets the first half's when the mirrored half begins
    (it would otherwise know its opponent's hand and both draw piles there)."""
    bot = write_bot(
        tmp_path,
        "memory",
        """
        import sys
        from bots.house import greedy
        remembered = []
        def new_game(info):
            print("remembers", len(remembered), file=sys.stderr)
            remembered.append(info["seed"])
        def play(observation):
            return greedy.play(observation)
    """,
    )
    result = run_match(unsandboxed("face-to-face", [bot, "house:greedy"], games=4, duplicate=True, seed="mem"))
    assert [game.stderr[0].split()[:2] for game in result.games] == [["remembers", str(n)] for n in (0, 1, 0, 1)]


def test_every_game_replays_to_its_recorded_outcome():
    result = run_match(MatchSpec("the-game", [BotSpec("house:greedy")] * 2, games=5, seed="r"))
    for game in result.games:
        assert games.replay(json.loads(json.dumps(game.log))) == game.outcome


def test_a_crash_is_recorded_as_a_crash_and_the_opponent_wins(tmp_path):
    crasher = write_bot(
        tmp_path,
        "crasher",
        """
        def play(observation):
            raise RuntimeError("boom")
    """,
    )
    result = run_match(unsandboxed("face-to-face", ["house:greedy", crasher], games=2))
    for game in result.games:
        crashed_seat = game.seat_bots.index(1)
        assert game.outcome.termination is Termination.CRASH
        assert game.outcome.seat == crashed_seat
        assert game.outcome.winner == 1 - crashed_seat
        assert game.outcome.detail == "play raised RuntimeError"  # the public log: never the bot's message
        assert "boom" not in game.log_json and "boom" in game.stderr[1]  # the owner's
        assert games.replay(game.log) == game.outcome


def test_an_illegal_turn_ends_the_game_and_is_kept_for_rechecking(tmp_path):
    cheat = write_bot(
        tmp_path,
        "cheat",
        """
        def play(observation):
            return {"plays": [[observation["hand"][0], "p9.up"]]}
    """,
    )
    result = run_match(unsandboxed("face-to-face", [cheat, "house:greedy"], games=1))
    game = result.games[0]
    assert game.outcome.termination is Termination.ILLEGAL_TURN
    assert game.outcome.winner == 1
    assert "cannot go on 'p9.up': there is no such pile" in game.outcome.detail
    assert game.log["rejected_turn"]["rule"] == "unknown-pile"
    assert games.replay(game.log) == game.outcome
    game.log["rejected_turn"]["rule"] = "pile-order"
    with pytest.raises(games.LogMismatch, match="breaks rule 'unknown-pile'"):
        games.replay(game.log)


def test_a_malformed_turn_is_an_illegal_turn(tmp_path):
    bot = write_bot(
        tmp_path,
        "garbage",
        """
        def play(observation):
            return {"moves": "all of them"}
    """,
    )
    game = run_match(unsandboxed("the-game", [bot], games=1)).games[0]
    assert game.outcome.termination is Termination.ILLEGAL_TURN
    assert "malformed turn" in game.outcome.detail
    assert games.replay(game.log) == game.outcome


def test_a_slow_bot_loses_on_time_once_its_bank_is_spent(tmp_path):
    slow = write_bot(
        tmp_path,
        "slow",
        """
        import time
        def play(observation):
            time.sleep(0.08)
            hand = observation["hand"]
            return {"plays": [[hand[0], "up1"], [hand[1], "up1"]]}
    """,
    )
    spec = unsandboxed("the-game", [slow], games=1, time_control=TimeControl(turn=0.05, bank=0.01, startup=1))
    game = run_match(spec).games[0]
    assert game.outcome.termination is Termination.TIMEOUT
    assert game.outcome.seat == 0
    assert game.outcome.score == 98


def test_a_bot_failing_three_times_forfeits_its_remaining_games(tmp_path):
    counter = tmp_path / "starts"
    crasher = write_bot(
        tmp_path,
        "crasher",
        f"""
        with open({str(counter)!r}, "a") as f:
            f.write("x")
        def play(observation):
            raise ValueError("always")
    """,
    )
    result = run_match(unsandboxed("face-to-face", ["house:random", crasher], games=6))
    assert [game.outcome.termination for game in result.games] == [Termination.CRASH] * 6
    assert "its remaining games are forfeits" in result.games[5].outcome.detail
    assert counter.read_text() == "xxx"  # loaded once per failure, never after the third


def test_new_game_is_called_before_each_game_and_module_state_persists(tmp_path):
    bot = write_bot(
        tmp_path,
        "memory",
        """
        games_seen = []
        def new_game(info):
            games_seen.append(info["seed"])
            assert info["game"] == "the-game" and info["players"] == 1 and info["seat"] == 0
        def play(observation):
            hand = observation["hand"]
            if len(games_seen) == 3:
                raise RuntimeError("saw " + ",".join(games_seen))
            return {"plays": [[hand[-1], "down1"], [hand[-2], "down1"]]}
    """,
    )
    result = run_match(unsandboxed("the-game", [bot], games=3, seed="m"))
    assert result.games[2].outcome.termination is Termination.CRASH
    seen = result.games[2].stderr[0].rpartition("saw ")[2].split()[0].split(",")
    assert len(set(seen)) == 3 and not {"m:0", "m:1", "m:2"} & set(seen)  # a seed of its own, not the deal's
    again = run_match(unsandboxed("the-game", [bot], games=3, seed="m"))
    assert again.games[2].stderr[0] == result.games[2].stderr[0]  # a rerun of the match tells it the same seeds


def test_plain_face_to_face_turns_take_the_engines_fast_path(monkeypatch):
    general = []
    original = games.GameState.push

    def counting_push(state, turn, ms=None):
        general.append(turn)
        return original(state, turn, ms)

    monkeypatch.setattr(games.GameState, "push", counting_push)
    spec = MatchSpec("face-to-face", [BotSpec("house:random"), BotSpec("house:greedy")], games=4, seed="fast")
    result = run_match(spec)
    assert sum(game.turns for game in result.games) > 10
    assert general == []  # every turn went through FaceToFaceState._push_plain, none through the general check


def test_a_result_keeps_the_log_as_the_json_text_it_is_stored_as():
    spec = MatchSpec("the-game", [BotSpec("house:random"), BotSpec("house:greedy")], games=2, seed="text")
    for game in run_match(spec).games:
        assert game.log_json == games.dumps_log(game.log)
        assert game.turns == len(game.log["turns"])
        assert games.replay(json.loads(game.log_json)) == game.outcome
        rebuilt = GameResult.from_log(game.index, game.deal, game.log, game.outcome, game.seat_bots)
        assert (rebuilt.log_json, rebuilt.turns, rebuilt.log) == (game.log_json, game.turns, game.log)


def test_house_bots_are_logged_with_the_version_of_their_code():
    from bots.house.versions import house_version

    spec = MatchSpec("face-to-face", [BotSpec("house:expert"), BotSpec("house:random")], games=2, seed="versions")
    result = run_match(spec)
    assert result.games[0].seat_bots == [0, 1]
    logged = [seat["version"] for seat in result.games[0].log["seats"]]
    assert logged == [house_version("expert"), house_version("random")]
    given = MatchSpec("face-to-face", [BotSpec("house:expert", version="sha256:given"), BotSpec("house:random")])
    assert run_match(given).games[0].log["seats"][0]["version"] == "sha256:given"
