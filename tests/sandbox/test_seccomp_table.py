"""The seccomp filter as a whole (bots/sandbox/seccomp.py): every call and flag it refuses is attempted from inside a
real sandbox and refused, each int argument also with a high word of garbage (the kernel reads the low 32 bits
only); and with any one of its rules taken out, that rule's probe gets through, so no rule goes untested.

The probes never run a call (attacks/probe_filter.py says how); the calls the filter hides (ENOSYS) are made for
real, with arguments that make every one of them fail harmlessly, or answer, where the filter lets them through.
"""

from __future__ import annotations

import errno
import importlib.util
import socket

import pytest
from sandbox_helpers import ATTACKS

from bots.sandbox import seccomp
from bots.sandbox.seccomp import ARGUMENT_RULES, DENIED, HIDDEN, ArgumentRule, Equals, HasBits, IsNot, LacksBits

HIGH_WORD = 1 << 32
PASSED = "passed"
# Arguments no rule of the call matches: a probe puts one rule's conditions on top of them, a control sends them as
# they are. (All zeros elsewhere: a clone without CLONE_THREAD is a new process, a socket of family 0 not AF_UNIX.)
BASE_ARGUMENTS = {"clone": [seccomp.CLONE_THREAD], "socket": [socket.AF_UNIX], "socketpair": [socket.AF_UNIX]}


def _prober():
    spec = importlib.util.spec_from_file_location("probe_filter", ATTACKS / "probe_filter.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _base(call: str) -> list[int]:
    return (BASE_ARGUMENTS.get(call, []) + [0] * 6)[:6]


def matching_arguments(rule: ArgumentRule, high_word: bool) -> list[int]:
    """Arguments for `rule.call` that meet every condition of `rule`, with garbage in the high word of each argument a
    condition looks at (if `high_word`)."""
    arguments = _base(rule.call)
    garbage = HIGH_WORD if high_word else 0
    for condition in rule.when:
        index = condition.index
        if isinstance(condition, Equals):
            arguments[index] = condition.value | garbage
        elif isinstance(condition, HasBits):
            arguments[index] |= condition.bits | garbage
        elif isinstance(condition, LacksBits):
            arguments[index] = (arguments[index] & ~condition.bits) | garbage
        elif isinstance(condition, IsNot):
            arguments[index] = condition.value | HIGH_WORD if high_word else condition.value + 1
        else:
            raise AssertionError(f"no probe for a {type(condition).__name__} condition")
    return arguments


def rule_probes(rule: ArgumentRule, number: int) -> list[list]:
    label = f"{rule.call} ({rule.why}: {', '.join(map(repr, rule.when))})"
    return [
        [label, number, matching_arguments(rule, False)],
        [f"{label}, high word", number, matching_arguments(rule, True)],
    ]


def denied_probes(denied: dict[str, tuple[str, ...]]) -> list[list]:
    return [[name, seccomp.syscall_number(name), []] for names in denied.values() for name in names]


def argument_probes(rules: tuple[ArgumentRule, ...]) -> list[list]:
    return [probe for rule in rules for probe in rule_probes(rule, seccomp.syscall_number(rule.call))]


def control_probes() -> list[list]:
    calls = sorted({rule.call for rule in ARGUMENT_RULES})
    return [[f"{call} (control)", seccomp.syscall_number(call), _base(call)] for call in calls]


def hidden_probes(hidden: dict[str, tuple[str, ...]]) -> list[list]:
    return [[name, seccomp.syscall_number(name), []] for names in hidden.values() for name in names]


def expected(denied=DENIED, rules=ARGUMENT_RULES) -> dict[str, str]:
    outcomes = {label: f"refused: errno {errno.EPERM}" for label, _, _ in denied_probes(denied)}
    for rule in rules:
        for label, _, _ in rule_probes(rule, 0):
            outcomes[label] = f"refused: errno {rule.error}"
    outcomes.update({label: PASSED for label, _, _ in control_probes()})
    return outcomes


def test_every_refused_call_and_flag_is_refused_inside_a_real_sandbox(attack):
    probes = denied_probes(DENIED) + argument_probes(ARGUMENT_RULES) + control_probes()
    assert len({label for label, _, _ in probes}) == len(probes)
    results = attack("probe_filter", {"probes": probes}).turn["results"]
    assert results == expected()


def test_every_hidden_call_answers_enosys_inside_a_real_sandbox(attack):
    results = attack("probe_filter", {"probes": hidden_probes(HIDDEN), "traced": False}).turn["results"]
    assert results == {label: f"refused: errno {errno.ENOSYS}" for label, _, _ in hidden_probes(HIDDEN)}


def _without(table: dict[str, tuple[str, ...]], name: str) -> dict[str, tuple[str, ...]]:
    return {group: tuple(entry for entry in names if entry != name) for group, names in table.items()}


@pytest.fixture(scope="module")
def prober():
    if not seccomp.available():
        pytest.skip(seccomp.MISSING_LIBRARY)
    return _prober()


@pytest.mark.parametrize("name", [name for names in DENIED.values() for name in names])
def test_without_a_denied_call_its_probe_passes(prober, name):
    program = seccomp.compile_filter(_without(DENIED, name), HIDDEN, ARGUMENT_RULES)
    assert prober.probe(denied_probes({"": (name,)}), [program]) == {name: PASSED}


@pytest.mark.parametrize("index", range(len(ARGUMENT_RULES)), ids=[rule.call for rule in ARGUMENT_RULES])
def test_without_an_argument_rule_its_probes_pass(prober, index):
    rule = ARGUMENT_RULES[index]
    others = ARGUMENT_RULES[:index] + ARGUMENT_RULES[index + 1 :]
    probes = rule_probes(rule, seccomp.syscall_number(rule.call))
    assert prober.probe(probes, [seccomp.compile_filter(DENIED, HIDDEN, others)]) == dict.fromkeys(
        [label for label, _, _ in probes], PASSED
    )
    with_it = prober.probe(probes, [seccomp.filter_bpf()])
    assert with_it == dict.fromkeys(with_it, f"refused: errno {rule.error}")


@pytest.mark.parametrize("name", [name for names in HIDDEN.values() for name in names])
def test_without_a_hidden_call_it_answers_otherwise(prober, name):
    enosys = f"refused: errno {errno.ENOSYS}"
    if prober.probe(hidden_probes({"": (name,)}), traced=False)[name] == enosys:
        pytest.skip(f"this kernel has no {name} of its own (ENOSYS with no filter at all)")
    program = seccomp.compile_filter(DENIED, _without(HIDDEN, name), ARGUMENT_RULES)
    outcome = prober.probe(hidden_probes({"": (name,)}), [program], traced=False)[name]
    assert outcome != enosys


def test_the_probes_tell_a_refusal_from_a_call_that_gets_through(prober):
    """The probe itself must be able to fail: with no filter but its own, everything passes and nothing runs."""
    probes = denied_probes(DENIED) + argument_probes(ARGUMENT_RULES)
    assert set(prober.probe(probes).values()) == {PASSED}
