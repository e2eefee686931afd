#!/usr/bin/env bash
# Inside the SMP guest (tests/bench/smp-pools): nfsd with pool_mode=percpu,
# one pool per CPU, per-host rule for 127.0.0.0/8; client a with 2
# connections against client b with K; then each pool's split of the
# dispatches between them, from the kernel's per-pool counters (the
# client-get dump's pool nests, through stats --pools); then b's
# connections in a class limited to 2 threads. One JSON object on stdout.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/uml/guest-lib.sh"
k=${1:-8}
seconds=${2:-30}

# The pool mode is read when nfsd's service is created.
echo percpu > /sys/module/sunrpc/parameters/pool_mode
nfsd_start 8 >&2
add_source_addr 127.0.0.2
add_source_addr 127.0.0.3
"$top/cli/nfsfair-ctl" -A -s 127.0.0.0/8 -j per-host
# The per-host clients go with their connections: read them during the
# run, over 10 s from a third in.
"$top/tests/load/nfsfair-load" --proc getattr --hold-us 2000 \
	--group a:127.0.0.2:2:8 --group "b:127.0.0.3:$k:8" \
	--duration "$seconds" --json > /run/smp-pools-load.json &
sleep $((seconds / 3))
"$top/cli/nfsfair-ctl" stats --pools --json -w 10 > /run/smp-pools-clients.json
wait

# Then the limit under real concurrency: b's K connections in a class
# capped at 2 threads, reserved by threads of both pools at once.
"$top/cli/nfsfair-ctl" -N bulk --limit 2
"$top/cli/nfsfair-ctl" -I -s 127.0.0.3 -j bulk
"$top/tests/load/nfsfair-load" --proc getattr --hold-us 2000 \
	--group a:127.0.0.2:2:8 --group "b:127.0.0.3:$k:8" \
	--duration "$seconds" --json > /run/smp-pools-limit.json
ynl --dump class-get > /run/smp-pools-classes.json
# What tests/qemu/console-check looks for.
dmesg | grep -E 'WARNING:|BUG:|possible circular locking|inconsistent lock state|suspicious RCU usage|sleeping function called from invalid context|list_add corruption|list_del corruption|ODEBUG:' \
	> /run/smp-pools-dmesg || true

python3 - /run/smp-pools-load.json /run/smp-pools-clients.json \
	"$(cat /sys/module/sunrpc/parameters/pool_mode)" "$(nproc)" \
	/run/smp-pools-limit.json /run/smp-pools-classes.json /run/smp-pools-dmesg <<'PY'
import json, sys
load = json.load(open(sys.argv[1]))
clients = json.load(open(sys.argv[2]))
limit_load = json.load(open(sys.argv[5]))
bulk = [c for c in json.load(open(sys.argv[6])) if c["name"] == "bulk"][0]
dmesg = open(sys.argv[7]).read().splitlines()
names = {"127.0.0.2/32": "a", "127.0.0.3/32": "b"}
pools = {}
for c in clients["clients"]:
    who = names.get(c.get("prefix"))
    if not who:
        continue
    for p in c["pools"]:
        pools.setdefault(p["pool"], {})[who] = p["dispatches"]
print(json.dumps({"pool_mode": sys.argv[3], "cpus": int(sys.argv[4]),
                  "pools": pools, "load": load, "limit_load": limit_load,
                  "bulk": bulk, "dmesg": dmesg}))
PY
