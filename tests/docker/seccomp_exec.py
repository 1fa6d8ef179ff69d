"""`seccomp_exec.py PROFILE.json COMMAND...`: run COMMAND under a Docker seccomp profile, as runc would load it.

Enough of the profile format for the tests: a default action, rules of SCMP_ACT_ALLOW or SCMP_ACT_ERRNO over
syscall names, and SCMP_CMP_MASKED_EQ argument conditions. Like Docker, names this kernel does not know are
skipped. Also sets no_new_privs (compose's `no-new-privileges:true`).
"""

from __future__ import annotations

import json
import os
import sys

import pyseccomp as sc


def action(rule: dict) -> object:
    if rule["action"] == "SCMP_ACT_ALLOW":
        return sc.ALLOW
    if rule["action"] == "SCMP_ACT_ERRNO":
        return sc.ERRNO(rule.get("errnoRet", 1))
    raise ValueError(f"unsupported action {rule['action']}")


def conditions(rule: dict) -> list:
    found = []
    for arg in rule.get("args") or []:
        if arg["op"] != "SCMP_CMP_MASKED_EQ":
            raise ValueError(f"unsupported comparison {arg['op']}")
        found.append(sc.Arg(arg["index"], sc.MASKED_EQ, arg["value"], arg["valueTwo"]))
    return found


def load(profile: dict) -> None:
    rules = sc.SyscallFilter(defaction=action({"action": profile["defaultAction"]}))
    for rule in profile["syscalls"]:
        rule_action, rule_conditions = action(rule), conditions(rule)
        for name in rule["names"]:
            try:
                rules.add_rule(rule_action, name, *rule_conditions)
            except (RuntimeError, ValueError, OSError):
                continue  # a name this kernel or libseccomp does not know
    rules.load()


if __name__ == "__main__":
    with open(sys.argv[1]) as source:
        load(json.load(source))
    os.execvp(sys.argv[2], sys.argv[2:])
