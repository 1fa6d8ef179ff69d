"""The statistics agree with published values: fishtest's own numbers and fastchess's tests.

Values marked "fishtest" were computed with fishtest's server/fishtest/stats (LLRcalc.LLR_normalized,
LLRcalc.LLR_logistic, stat_util.get_elo and the nElo lines of its results page) at commit b8eecff2; the ones marked
"fastchess" are the expected values of Disservin/fastchess's app/tests/sprt_test.cpp and elo_test.cpp
(two decimals). Counts are NEW's, lowest class first.
"""

import pytest

from bots.sprt import SPRT, Counts, estimate

# (counts, elo0, elo1, model, LLR), fishtest
FISHTEST_LLR = [
    ([13, 37, 50, 25, 3], 0, 4, "normalized", -0.5491245874012585),  # the issue's example
    ([13, 37, 50, 25, 3], 0, 4, "logistic", -0.8022282696089096),
    ([1187, 7410, 13475, 7378, 1164], -3, 1, "logistic", 2.86152718059463),
    ([10789, 19328, 33806, 19402, 10543], -3, 1, "logistic", 2.1310678117940807),
    ([39, 2226, 31451, 2412, 40], 0.2, 0.9, "logistic", 2.1625425800483593),
    ([39, 2226, 31451, 2412, 40], 0.764, 3.439, "normalized", 2.162940869584568),
    ([1, 0, 45, 0, 130], 0, 5, "normalized", 3.0088109653974096),
    ([30, 0, 140, 0, 30], 0, 5, "normalized", -0.041422921124936556),
    ([0, 0, 0, 0, 0], 0, 5, "normalized", -1.0353876017312695e-06),
    ([5, 0, 0, 0, 0], -10, 10, "logistic", -0.28793816606501965),
    ([7, 1, 92], 0, 5, "normalized", 1.2190335722863825),
    ([120, 40, 140], 0, 10, "logistic", 0.5209241262564748),
    ([36027, 68692, 36433], 0, 2, "normalized", 0.9232934509457336),
    ([0, 16700, 0], 0, 5, "normalized", -3.450539774139151),
]

# (counts, elo0, elo1, model, LLR to two decimals), fastchess; its Stats(w, l, d) and Stats(ll, ld, wl, dd, wd, ww)
# rewritten as [L, D, W] and [LL, LD, WL+DD, WD, WW]
FASTCHESS_LLR = [
    ([36027, 68692, 36433], 0, 2, "normalized", 0.92),
    ([10650, 20431, 10871], -1.75, 0.25, "normalized", 2.30),
    ([21184, 40708, 21404], 0.5, 2.5, "logistic", -1.57),
    ([57030, 106593, 57433], 0, 2, "logistic", -2.59),
    ([365, 16618, 36229, 16974, 390], 0, 2, "normalized", 2.25),
    ([127, 4883, 10712, 5150, 104], -1.75, 0.25, "normalized", 3.01),
    ([223, 9863, 21279, 10037, 246], 0.5, 2.5, "logistic", -3.07),
    ([871, 26175, 55983, 26678, 821], 0, 2, "logistic", -4.98),
]

# (counts, Elo, +-, LOS), fishtest's get_elo
FISHTEST_ELO = [
    ([34, 54, 63, 64, 75], 55.57978042044588, 27.65342950639345, 0.9999703930084313),
    ([332, 433, 498, 333, 334], -8.64266726796901, 10.334194424393056, 0.05047006698252935),
    ([7895, 8757, 5685, 568, 9999], -21.04352057817286, 2.945280868527817, 4.548721049101715e-45),
    ([89, 123, 76], -15.693520705432237, 30.45800071698045, 0.1553264349274983),
    ([96, 111, 136], 40.702458186527075, 30.42721794360099, 0.9960102357334972),
    ([13, 37, 50, 25, 3], -43.6577877700272, 29.427164519171306, 0.001610401145416645),
    ([1, 0, 45, 0, 130], 324.8745396045365, 51.43873508436985, 1.0),
    ([7, 1, 92], 436.4321877389334, 152.2104542632666, 1.0),
]

# (counts, nElo, +-), fishtest's results page (pentanomial and trinomial nElo with their 95% intervals)
FISHTEST_NELO = [
    ([34, 54, 63, 64, 75], 57.93559993812432, 29.23287845829328),
    ([332, 433, 498, 333, 334], -9.172914270047176, 10.981292604043105),
    ([13, 37, 50, 25, 3], -63.96807627734982, 43.024528992464575),
    ([1, 0, 45, 0, 130], 395.6752024316315, 75.12542953622327),
    ([89, 123, 76], -20.756449777395378, 40.229041361579135),
    ([96, 111, 136], 49.768415381022194, 37.3845114015893),
    ([7, 1, 92], 570.993718799995, 249.42760970857628),
]


@pytest.mark.parametrize(("cells", "elo0", "elo1", "model", "llr"), FISHTEST_LLR)
def test_llr_is_fishtests(cells, elo0, elo1, model, llr):
    assert SPRT(elo0, elo1, elo_model=model).llr(Counts.of(cells)) == pytest.approx(llr, rel=1e-7, abs=1e-9)


@pytest.mark.parametrize(("cells", "elo0", "elo1", "model", "llr"), FASTCHESS_LLR)
def test_llr_is_fastchesss(cells, elo0, elo1, model, llr):
    assert SPRT(elo0, elo1, elo_model=model).llr(Counts.of(cells)) == pytest.approx(llr, abs=0.005)


def test_the_issues_example_to_three_decimals():
    assert round(SPRT(0, 4, elo_model="normalized").llr(Counts.of([13, 37, 50, 25, 3])), 3) == -0.549


def test_bounds_are_walds():
    test = SPRT(alpha=0.05, beta=0.05)
    assert test.lower == pytest.approx(-2.944438979) and test.upper == pytest.approx(2.944438979)
    test = SPRT(alpha=0.05, beta=0.10)
    assert test.lower == pytest.approx(-2.251291799) and test.upper == pytest.approx(2.890371758)


@pytest.mark.parametrize(("cells", "elo", "error", "los"), FISHTEST_ELO)
def test_elo_interval_and_los_are_fishtests(cells, elo, error, los):
    result = estimate(Counts.of(cells))
    assert result.elo == pytest.approx(elo, rel=1e-9)
    assert result.error == pytest.approx(error, rel=1e-9)
    assert result.los == pytest.approx(los, rel=1e-6, abs=1e-300)
    assert result.elo_low < result.elo < result.elo_high


@pytest.mark.parametrize(("cells", "nelo", "error"), FISHTEST_NELO)
def test_normalized_elo_is_fishtests(cells, nelo, error):
    result = estimate(Counts.of(cells))
    assert result.nelo == pytest.approx(nelo, rel=1e-9)
    assert result.nelo_error == pytest.approx(error, rel=1e-9)
    assert result.nelo_high - result.nelo == pytest.approx(result.nelo - result.nelo_low)


@pytest.mark.parametrize(
    ("cells", "elo", "error", "nelo"),
    [  # fastchess's elo_test.cpp: Elo +- and nElo (its nElo interval is a linear approximation, not fishtest's)
        ([34, 54, 63, 64, 75], 55.58, 27.65, 57.94),
        ([332, 433, 498, 333, 334], -8.64, 10.33, -9.17),
        ([7895, 8757, 5685, 568, 9999], -21.04, 2.95, -19.01),
        ([96, 111, 136], 40.70, 30.43, 49.77),
    ],
)
def test_elo_matches_fastchess(cells, elo, error, nelo):
    result = estimate(Counts.of(cells))
    assert result.elo == pytest.approx(elo, abs=0.006)
    assert result.error == pytest.approx(error, abs=0.006)
    assert result.nelo == pytest.approx(nelo, abs=0.006)
