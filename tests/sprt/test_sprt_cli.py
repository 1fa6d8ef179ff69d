"""`python -m bots sprt`: verdicts and exit codes, the JSON record, co-op deals, file bots in the sandbox, usage errors.

Quick tests use wide logistic bounds so that greedy against random decides in a few pairs.
"""

import json
import shutil
from pathlib import Path

import pytest

from bots.__main__ import main
from bots.sprt import SPRT, Counts, estimate

WIDE = ["--elo-model", "logistic", "--elo0", "0", "--elo1", "200"]
KEYS = {"verdict", "llr", "lower", "upper", "elo0", "elo1", "elo_model", "alpha", "beta", "games", "pairs"}
KEYS |= {"elo", "elo_ci", "los", "seed"}


def sprt(capsys, *args):
    code = main(["sprt", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def sprt_json(capsys, *args):
    code, out, err = sprt(capsys, *args, "--json")
    return code, json.loads(out)


def test_a_stronger_new_version_passes(capsys):
    code, record = sprt_json(capsys, "house:greedy", "house:random", "--game", "face-to-face", "--seed", "1", *WIDE)
    assert code == 0 and record["verdict"] == "H1"
    assert KEYS <= set(record) and len(record["pentanomial"]) == 5
    assert record["llr"] >= record["upper"]
    assert record["games"] == 2 * record["pairs"] == 2 * sum(record["pentanomial"])
    assert record["seed"] == "1" and record["elo"] > 0 and record["los"] > 0.5


def test_a_weaker_new_version_fails(capsys):
    code, record = sprt_json(capsys, "house:random", "house:greedy", "--game", "face-to-face", "--seed", "2", *WIDE)
    assert code == 1 and record["verdict"] == "H0" and record["llr"] <= record["lower"]
    assert record["elo"] < 0 and record["elo_ci"][0] <= record["elo"] <= record["elo_ci"][1]


def test_no_verdict_at_the_cap_exits_3(capsys):
    code, record = sprt_json(capsys, "house:greedy", "house:random", "--game", "face-to-face", "--max-games", "4")
    assert code == 3 and record["verdict"] is None
    assert record["games"] == 4 and record["pairs"] == 2
    assert record["lower"] < record["llr"] < record["upper"]
    assert len(record["seed"]) == 32  # a fresh random seed, printed so the run can be repeated


def test_an_odd_cap_plays_whole_pairs(capsys):
    code, record = sprt_json(capsys, "house:greedy", "house:random", "--game", "face-to-face", "--max-games", "5")
    assert code == 3 and record["games"] == 4


def test_the_record_is_recomputable_from_its_counts(capsys):
    _, record = sprt_json(
        capsys, "house:greedy", "house:random", "--game", "face-to-face", "--max-games", "40", "--elo1", "150"
    )
    counts = Counts.of(record["pentanomial"])
    test = SPRT(record["elo0"], record["elo1"], record["alpha"], record["beta"], record["elo_model"])
    assert record["llr"] == pytest.approx(test.llr(counts), abs=1e-6)
    result = estimate(counts)
    assert record["elo"] == pytest.approx(result.elo, abs=1e-3)
    assert record["elo_ci"] == pytest.approx([result.elo_low, result.elo_high], abs=1e-3)
    assert record["los"] == pytest.approx(result.los, abs=1e-6)
    assert record["nelo"] == pytest.approx(result.nelo, abs=1e-3)


def test_the_same_seed_plays_the_same_test(capsys):
    args = ["house:greedy", "house:random", "--game", "face-to-face", "--seed", "s", "--max-games", "20"]
    first, second = sprt_json(capsys, *args)[1], sprt_json(capsys, *args)[1]
    assert first["pentanomial"] == second["pentanomial"] and first["llr"] == second["llr"]


def test_the_batch_is_the_pairs_between_checks(capsys):
    args = ["house:greedy", "house:random", "--game", "face-to-face", "--seed", "1", *WIDE]
    _, one = sprt_json(capsys, *args, "--batch", "1")
    _, five = sprt_json(capsys, *args, "--batch", "5")
    assert five["pairs"] % 5 == 0 and five["pairs"] >= one["pairs"]


def test_coop_versions_play_the_same_deals(capsys):
    code, record = sprt_json(
        capsys, "house:greedy", "house:random", "--game", "the-game", "--players", "2", "--seed", "3", *WIDE
    )
    assert code == 0 and record["verdict"] == "H1" and record["players"] == 2
    assert "pentanomial" not in record and len(record["trinomial"]) == 3
    assert record["games"] == 2 * sum(record["trinomial"])


def test_the_text_report_says_the_verdict_in_words(capsys):
    code, out, _ = sprt(capsys, "house:greedy", "house:random", "--game", "face-to-face", "--seed", "1", *WIDE)
    assert code == 0
    assert "house:greedy is stronger than house:random" in out
    assert "LLR" in out and "pentanomial [LL, LD, LW+DD, DW, WW]" in out


def test_progress_shows_games_llr_and_elo(capsys):
    code, _, err = sprt(capsys, "house:greedy", "house:random", "--game", "face-to-face", "--progress", *WIDE)
    assert code == 0
    assert "games  LLR" in err and "Elo" in err and "[-2.94, 2.94]" in err


def test_a_file_bot_runs_in_the_sandbox(tmp_path, capsys):
    bot = tmp_path / "bot.py"
    shutil.copy(Path(__file__).parents[2] / "bots" / "house" / "greedy.py", bot)
    code, record = sprt_json(capsys, str(bot), "house:random", "--game", "face-to-face", "--seed", "4", *WIDE)
    assert code == 0 and record["verdict"] == "H1" and record["new"] == str(bot)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["house:greedy", "house:random", "--game", "face-to-face", "--elo0", "5", "--elo1", "5"], "below elo1"),
        (["house:greedy", "house:random", "--game", "face-to-face", "--alpha", "0"], "alpha"),
        (["house:greedy", "house:random", "--game", "face-to-face", "--beta", "0.7"], "beta"),
        (["house:greedy", "house:random", "--game", "face-to-face", "--players", "3"], "exactly 2"),
        (["house:greedy", "house:random", "--game", "the-game", "--players", "6"], "1 to 5"),
        (["house:greedy", "house:random", "--game", "face-to-face", "--max-games", "1"], "at least 2"),
        (["house:greedy", "house:random", "--game", "face-to-face", "--batch", "0"], "--batch"),
        (["house:greedy", "house:nobody", "--game", "face-to-face"], "unknown house bot"),
        (["house:greedy", "missing.py", "--game", "face-to-face"], "neither house:NAME"),
        (["house:greedy", "house:random", "--game", "face-to-face", "--elo1", "5000"], "within"),
    ],
)
def test_usage_errors_exit_2_and_name_the_problem(capsys, args, message):
    code, out, err = sprt(capsys, *args)
    assert code == 2 and out == "" and message in err


def test_argparse_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["sprt", "house:greedy", "--game", "face-to-face"])
    assert exit_.value.code == 2


@pytest.mark.slow
def test_expert_beats_greedy_with_the_default_test(capsys):
    code, record = sprt_json(capsys, "house:expert", "house:greedy", "--game", "face-to-face", "--seed", "23")
    assert code == 0 and record["verdict"] == "H1" and record["elo_model"] == "normalized"
    assert (record["elo0"], record["elo1"], record["alpha"], record["beta"]) == (0, 5, 0.05, 0.05)
