#!/usr/bin/env bash
# prometheus/nfsfair-rules.yml: promtool check rules passes it; each alert
# has its own test file, tests/unit/prometheus-rules/ALERT.yml, with a case
# where it fires and one where it does not, over series written there, and
# records.yml tests every recording rule; promtool test rules passes each.
# Every alert pages with a severity, a summary, a description and a
# runbook naming what to run; every metric the rules read is one that
# nfsfair-ctl or nfsfaird writes (or the node exporter's own). A broken
# copy of the rules fails its test, so the tests can fail. Last, the file
# the real nfsfaird writes on this kernel fires what it should.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
rules=$top/prometheus/nfsfair-rules.yml
cases=$top/tests/unit/prometheus-rules
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

require "promtool is installed" eval 'command -v promtool > /dev/null'
out=$(promtool check rules "$rules" 2>&1)
check "promtool check rules: $(grep -o 'SUCCESS.*' <<< "$out")" \
	eval '[ $? -eq 0 ] && [ "$(wc -l <<< "$out")" = 2 ]' || diag "$out"

# tests_pass FILE: promtool test rules passes it, its output in $tmp/test.
tests_pass() { (cd "$cases" && promtool test rules "$1" > "$tmp/test" 2>&1); }
for f in "$cases"/*.yml; do
	check "promtool test rules ${f#"$top"/}" tests_pass "${f##*/}" || diag "$(cat "$tmp/test")"
done

# What the rules file and the tests hold, checked in python3-yaml: each
# failure one line.
python3 - "$rules" "$cases" "$top" > "$tmp/lint" 2>&1 <<'PY'
import glob, os, re, sys, yaml

rules_path, cases, top = sys.argv[1:]
groups = yaml.safe_load(open(rules_path))["groups"]
rules = [r for g in groups for r in g["rules"]]
alerts = [r for r in rules if "alert" in r]
records = [r for r in rules if "record" in r]

def say(test, ok, why=""):
    print("%s\t%s\t%s" % ("ok" if ok else "not ok", test, why))

# Each alert: severity, the three annotations, a runbook naming a command.
commands = re.compile(r"\b(nfsfair-ctl|nfsfaird|journalctl|dkms|systemctl)\b")
for a in alerts:
    ann = a.get("annotations", {})
    missing = [k for k in ("summary", "description", "runbook") if not ann.get(k)]
    sev = a.get("labels", {}).get("severity")
    say("%s: severity critical or warning, summary, description and runbook" % a["alert"],
        not missing and sev in ("critical", "warning"), "missing %s, severity %s" % (missing, sev))
    say("%s: its runbook says what to run" % a["alert"],
        bool(commands.search(ann.get("runbook", ""))), ann.get("runbook", ""))

# Each alert's test file: a case where it fires, one where it does not.
for a in alerts:
    name = a["alert"]
    path = os.path.join(cases, name + ".yml")
    fires = quiet = False
    if os.path.exists(path):
        doc = yaml.safe_load(open(path))
        for t in doc["tests"]:
            for at in t.get("alert_rule_test", []):
                if at["alertname"] != name:
                    continue
                if at.get("exp_alerts"):
                    fires = True
                else:
                    quiet = True
    say("%s: tests/unit/prometheus-rules/%s.yml, fires and stays quiet" % (name, name),
        fires and quiet, "fires %s, quiet %s" % (fires, quiet))

# Each recording rule queried in records.yml.
doc = yaml.safe_load(open(os.path.join(cases, "records.yml")))
queried = " ".join(e["expr"] for t in doc["tests"] for e in t.get("promql_expr_test", []))
for r in records:
    say("%s: tested in records.yml" % r["record"],
        re.search(r"(?<![\w:])%s(?![\w:])" % re.escape(r["record"]), queried) is not None)

# Each metric the rules read: written by nfsfair-ctl (cli/openmetrics.c)
# or nfsfaird (daemon/metrics.c), or the node exporter's own.
# nfsfair_class_thread_seconds_total: nfsfair-ctl's thread-time counter,
# being added beside these rules (records.yml gives its own series).
written = set()
for src in ("cli/openmetrics.c", "daemon/metrics.c"):
    written |= set(re.findall(r'"(nfsfaird?_[a-z0-9_]+)"', open(os.path.join(top, src)).read()))
known = written | {"node_textfile_mtime_seconds", "node_systemd_unit_state",
                  "nfsfair_class_thread_seconds_total"}
read = set()
for r in rules:
    expr = r["expr"]
    for rx in re.findall(r'__name__=~"([^"]+)"', expr):
        m = re.fullmatch(r"([a-z_]*)\(([a-z_|]+)\)([a-z_]*)", rx)
        if not m:
            say("__name__=~\"%s\": a form this check reads" % rx, False)
            continue
        read |= {m.group(1) + alt + m.group(3) for alt in m.group(2).split("|")}
    expr = re.sub(r'\{[^}]*\}', "", expr)
    read |= {n for n in re.findall(r"(?<![\w:])([a-z_][a-z0-9_]*)(?![\w:(])", expr)
             if n.startswith(("nfsfair", "node_"))}
for n in sorted(read):
    by = ("nfsfair-ctl or nfsfaird" if n in written else
          "the node exporter" if n in known and n.startswith("node_") else
          "nfsfair-ctl (being added)" if n in known else "nobody")
    say("the rules read %s, which %s writes" % (n, by), n in known,
        "not in cli/openmetrics.c nor daemon/metrics.c")
PY
check "the rules file and its tests read as YAML" [ -s "$tmp/lint" ] || diag "$(cat "$tmp/lint")"
while IFS=$'\t' read -r status desc why; do
	case $status in
	ok) check "$desc" true ;;
	"not ok") check "$desc" false; diag "$why" ;;
	*) check "python: $status $desc" false ;;
	esac
done < "$tmp/lint"

# A broken copy fails: NfsfairClassStarved's threshold of 0.5 s made 5 s,
# NfsfairKernelFamilyMissing made to want a family of 2.
sed -e 's/class:nfsfair_class_queue_wait_seconds:mean5m > 0\.5$/class:nfsfair_class_queue_wait_seconds:mean5m > 5/' \
	-e 's/expr: nfsfaird_kernel_family == 0$/expr: nfsfaird_kernel_family == 2/' \
	"$rules" > "$tmp/broken-rules.yml"
check "the broken copy differs in those two lines" \
	eval '[ "$(diff "$rules" "$tmp/broken-rules.yml" | grep -c "^>")" = 2 ]'
# broken_fails ALERT: ALERT's tests, on the broken copy, fail naming ALERT.
broken_fails() {
	sed "s|^  - \.\./\.\./\.\./prometheus/nfsfair-rules\.yml$|  - $tmp/broken-rules.yml|" \
		"$cases/$1.yml" > "$tmp/$1.yml"
	! promtool test rules "$tmp/$1.yml" > "$tmp/$1.out" 2>&1 &&
		grep -q "alertname: $1, time: " "$tmp/$1.out"
}
check "... NfsfairClassStarved's tests fail on it" broken_fails NfsfairClassStarved
check "... NfsfairKernelFamilyMissing's tests fail on it" broken_fails NfsfairKernelFamilyMissing

# The file the real nfsfaird writes here (tests/unit/daemon-metrics.sh),
# as the node exporter would give it for 10 minutes: on this kernel without
# the nfsfair family, NfsfairKernelFamilyMissing alone fires (not
# NfsfairdApplyFailing); on a kernel with it, nothing fires.
nfsfaird=$top/daemon/nfsfaird
if [ -x "$nfsfaird" ]; then
	ns=()
	! unshare -n true 2> /dev/null || ns=(unshare -n)
	printf '%s\n' 'classes:' '  - name: movers' '    members: [192.0.2.1]' > "$tmp/c.yaml"
	"${ns[@]}" "$nfsfaird" --once -c "$tmp/c.yaml" -d /nonexistent --state-dir "$tmp/state" \
		--metrics-file "$tmp/nfsfaird.prom" > /dev/null 2>&1
	rc=$?
	{
		printf 'rule_files:\n  - %s\nevaluation_interval: 1m\ntests:\n' "$rules"
		printf '  - interval: 1m\n    input_series:\n'
		sed -n 's/^\(nfsfaird_[a-z_]*\){namespace=""} \([0-9]*\)$/      - series: \1{instance="nfs1:9100",job="node"}\n        values: \2x10/p' \
			"$tmp/nfsfaird.prom"
		printf '    promql_expr_test:\n      - expr: ALERTS{alertstate="firing"}\n'
		printf '        eval_time: 10m\n        exp_samples:\n'
		[ "$rc" -eq 0 ] ||
			printf '          - labels: ALERTS{alertname="NfsfairKernelFamilyMissing",alertstate="firing",instance="nfs1:9100",job="node",severity="critical"}\n            value: 1\n'
		[ "$rc" -ne 0 ] || printf '          []\n'
	} > "$tmp/own.yml"
	if [ "$rc" -eq 0 ]; then
		desc="nfsfaird's own file after an apply that worked: no alert"
	else
		desc="nfsfaird's own file on a kernel without the family: NfsfairKernelFamilyMissing alone"
	fi
	check "$desc" eval 'promtool test rules "$tmp/own.yml" > "$tmp/own.out" 2>&1' ||
		diag "$(cat "$tmp/own.out" "$tmp/own.yml")"
else
	check "nfsfaird's own file # SKIP daemon/nfsfaird is not built" true
fi
tap_done
