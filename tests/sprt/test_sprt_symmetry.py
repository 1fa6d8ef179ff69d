"""Mirrored counts (the same results from BASE's side) flip the Elo and swap the hypotheses."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bots.sprt import SPRT, Counts, Verdict, estimate

pentanomials = st.lists(st.integers(0, 3000), min_size=5, max_size=5)
trinomials = st.lists(st.integers(0, 3000), min_size=3, max_size=3)
models = st.sampled_from(["logistic", "normalized"])
bounds = st.tuples(st.floats(-30, 30), st.floats(0.5, 20)).map(lambda b: (b[0], b[0] + b[1]))


@settings(max_examples=150, deadline=None)
@given(cells=st.one_of(pentanomials, trinomials), model=models, elo_bounds=bounds)
def test_mirrored_counts_negate_the_llr_of_the_mirrored_hypotheses(cells, model, elo_bounds):
    elo0, elo1 = elo_bounds
    counts = Counts.of(cells)
    forward = SPRT(elo0, elo1, elo_model=model).llr(counts)
    backward = SPRT(-elo1, -elo0, elo_model=model).llr(counts.mirrored())
    assert backward == pytest.approx(-forward, rel=1e-6, abs=1e-6)


@settings(max_examples=150, deadline=None)
@given(cells=st.one_of(pentanomials, trinomials))
def test_mirrored_counts_flip_the_elo_and_the_los(cells):
    counts = Counts.of(cells)
    forward, backward = estimate(counts), estimate(counts.mirrored())
    assert backward.elo == pytest.approx(-forward.elo, abs=1e-6)
    assert (backward.elo_low, backward.elo_high) == pytest.approx((-forward.elo_high, -forward.elo_low), abs=1e-6)
    assert backward.nelo == pytest.approx(-forward.nelo, abs=1e-6)
    assert backward.los == pytest.approx(1 - forward.los, abs=1e-9)


def test_a_verdict_for_new_is_the_opposite_verdict_for_base():
    counts = Counts.of([30, 100, 400, 300, 170])
    test = SPRT(0, 5, elo_model="normalized")
    mirrored_test = SPRT(-5, 0, elo_model="normalized")
    assert test.verdict(test.llr(counts)) == Verdict.H1
    assert mirrored_test.verdict(mirrored_test.llr(counts.mirrored())) == Verdict.H0


@pytest.mark.parametrize("cells", [[10, 20, 40, 20, 10], [5, 0, 5], [0, 0, 0, 0, 0], [7, 3, 7]])
def test_balanced_counts_give_no_elo_and_even_odds(cells):
    result = estimate(Counts.of(cells))
    assert result.elo == pytest.approx(0, abs=1e-9) and result.los == pytest.approx(0.5)
    # LLR of symmetric bounds around 0 is 0 for balanced counts
    assert SPRT(-5, 5).llr(Counts.of(cells)) == pytest.approx(0, abs=1e-9)


lopsided = st.lists(st.sampled_from([0, 0, 1, 2, 7, 100, 10**5]), min_size=5, max_size=5) | st.lists(
    st.sampled_from([0, 0, 1, 3, 100, 10**5]), min_size=3, max_size=3
)


@settings(max_examples=300, deadline=None)
@given(
    cells=lopsided,
    model=models,
    low=st.floats(-1, 1),
    width=st.floats(0.001, 2),
)
def test_every_allowed_bound_has_an_llr_for_any_counts(cells, model, low, width):
    limit = 1000 if model == "logistic" else 200
    elo0 = low * limit
    elo1 = min(limit, elo0 + width * limit)
    if elo1 <= elo0:
        return
    llr = SPRT(elo0, elo1, elo_model=model).llr(Counts.of(cells))
    assert llr == llr and abs(llr) < float("inf")
