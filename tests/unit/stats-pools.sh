#!/bin/bash
# stats --pools without a kernel: cli/stats-pools.c on client-get dumps
# made up by stats-pools.c. Each client's share of each pool is its growth
# there over the pool's, a client new since the first dump or whose
# counters went back counts from 0, and a skew is flagged past 10 points
# between two pools of 100 dispatches or more, and only then: 23 points
# (the reference's 49% against 26%) are, 4 and exactly 10 are not, a pool
# of 50 dispatches says nothing. The text is compared whole once; the
# JSON is read.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s -C "$top/cli" > /dev/null || { echo "1..0 # cli/ does not build"; exit 1; }
# shellcheck disable=SC2046
cc -Wall -Wextra -Werror -I"$top/netlink-spec/uapi" $(pkg-config --cflags libnl-genl-3.0) \
	-o "$tmp/pools" "$top/tests/unit/stats-pools.c" "$top/cli/stats-pools.c" \
	"$top/lib/libnfsfair.a" $(pkg-config --libs libnl-genl-3.0) -lm ||
	{ echo "1..0 # stats-pools.c does not build"; exit 1; }

# json SCENARIO EXPR [CLASS]: EXPR (Python, over the JSON screen as d,
# with c(NAME) the client named NAME and p(NAME, POOL) its row of POOL)
# is true.
json() {
	"$tmp/pools" "$1" json ${3:+"$3"} > "$tmp/$1.json" || return
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
def name(k):
	return k.get("class") or k.get("prefix") or k.get("client-id") or k["kind"]
def c(n):
	return [k for k in d["clients"] if name(k) == n][0]
def p(n, pool):
	return [r for r in c(n)["pools"] if r["pool"] == pool][0]
sys.exit(not eval("(" + sys.argv[2] + ")"))' "$tmp/$1.json" "$2" || { diag "$(cat "$tmp/$1.json")"; false; }
}

"$tmp/pools" skew > "$tmp/skew.txt"
cat > "$tmp/want" <<'EOF'
every 2s: 1450 dispatches in 3 pools: pool 0: 1000, pool 1: 400, pool 2: 50
client                       pool  share   disp/s threads queued
class bulk                      0  25.0%    125.0       4      0
                                1  25.0%     50.0       0      0
                                2 100.0%     25.0       5      0
per-host 127.0.0.3/32           0  49.0%    245.0       3      0
                                1  26.0%     52.0       5      4
                                2   0.0%      0.0       0      0
per-host 127.0.0.4/32           0  26.0%    130.0       1      2
                                1  49.0%     98.0       0      1
                                2   0.0%      0.0       0      0
default                         0   0.0%      0.0       0      0
                                1   0.0%      0.0       0      0
                                2   0.0%      0.0       0      0
skew: per-host 127.0.0.3/32 49.0% of pool 0, 26.0% of pool 1: 23.0 points apart
skew: per-host 127.0.0.4/32 49.0% of pool 1, 26.0% of pool 0: 23.0 points apart
EOF
check "skew: the text screen, rows per pool, both skews flagged" diff -u "$tmp/want" "$tmp/skew.txt"
check "skew: pools' dispatches are every client's growth there (1000, 400, 50)" \
	json skew '[(x["pool"], x["dispatches"]) for x in d["pools"]] == [(0, 1000), (1, 400), (2, 50)]'
check "skew: each pool's shares add up to 100" \
	json skew 'all(abs(sum(p(name(k), i)["share-pct"] for k in d["clients"]) - 100) < 1e-6
		       for i in (0, 1, 2))'
check "skew: 127.0.0.3/32 49% of pool 0, 26% of pool 1: 23 points, flagged" \
	json skew 'p("127.0.0.3/32", 0)["share-pct"] == 49 and p("127.0.0.3/32", 1)["share-pct"] == 26
		   and abs(c("127.0.0.3/32")["spread-points"] - 23) < 1e-6 and c("127.0.0.3/32")["skew"]'
check "skew: 127.0.0.4/32 the other way round, flagged" \
	json skew 'c("127.0.0.4/32")["skew"] and p("127.0.0.4/32", 1)["share-pct"] == 49'
check "skew: bulk has all of pool 2's 50 dispatches, too few to count: no skew" \
	json skew 'p("bulk", 2)["share-pct"] == 100 and c("bulk")["spread-points"] == 0
		   and not c("bulk")["skew"]'
check "skew: the thresholds are in the document: 10 points, 100 dispatches" \
	json skew 'd["skew-points"] == 10 and d["skew-min-dispatches"] == 100'
check "skew: per-pool threads and queued are the kernel's, not differences" \
	json skew 'p("127.0.0.3/32", 1)["threads"] == 124 % 7 and p("127.0.0.3/32", 1)["queued"] == 124 % 5'
check "skew: a client with no nest in a pool has 0 there" \
	json skew 'p("127.0.0.3/32", 2)["dispatches"] == 0 and p("127.0.0.3/32", 2)["threads"] == 0'
check "even: 4 points apart is no skew, and the text says so" eval \
	'json even "not any(k[\"skew\"] for k in d[\"clients\"])" &&
	 "$tmp/pools" even | tail -n 1 | grep -qx "no skew: no client.s shares of two pools with 100 dispatches or more differ by more than 10 points"'
check "churn: a new client and one that came back count from 0" \
	json churn 'p("0x6b0f2c1a00000002", 0)["dispatches"] == 300 and p("127.0.0.3/32", 0)["dispatches"] == 300
		    and p("127.0.0.4/32", 0)["dispatches"] == 400 and d["dispatches"] == 1400'
check "churn: exactly 10 points apart (40% and 50%) is not a skew" \
	json churn 'abs(c("127.0.0.4/32")["spread-points"] - 10) < 1e-6 and not c("127.0.0.4/32")["skew"]'
check "churn: the client ID is named in hex, with its kind" \
	json churn 'c("0x6b0f2c1a00000002")["kind"] == "client-id"'
check "one pool: nothing to compare, spread-points null, no skew" \
	json one 'len(d["pools"]) == 1 and all(k["spread-points"] is None and not k["skew"]
						 for k in d["clients"])'
check "one pool: the text says 1 pool" eval '"$tmp/pools" one | head -n 1 | grep -q " in 1 pool: pool 0: 1600$"'
check "CLASS: bulk's rows alone, the pools' totals still everyone's" \
	json skew 'len(d["clients"]) == 1 and c("bulk") and d["pools"][0]["dispatches"] == 1000' bulk
check "CLASS: no skew line for the others" eval \
	'! "$tmp/pools" skew "" bulk | grep -q "^skew:"'
tap_done
