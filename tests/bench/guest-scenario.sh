#!/bin/bash
# Inside the guest: one fairness scenario.
#   guest-scenario.sh THREADS TABLE OUT -- LOAD-ARGS...
# Starts nfsd with THREADS threads, gives the guest the 127.0.0.x source
# addresses that LOAD-ARGS name, sets up TABLE through the nfsfair family,
# runs tests/load/nfsfair-load LOAD-ARGS --json and writes to OUT one
# JSON document: {"load": <the generator's report>, "clients": <client-get
# dump, or null on a kernel without nfsfair>, "classes": <class-get dump,
# or null>}.
#
# TABLE: "none" (nothing configured), "per-host" (127.0.0.0/8, each
# address its own client), "per-client" (127.0.0.0/8, each NFSv4.1 client
# ID its own client, per-host until bound), or "class:ITEM[,ITEM...]", each
# ITEM "NAME[/LIMIT][@WEIGHT]=ADDR[+ADDR...]" making the listed /32
# addresses one class, with that thread limit and weight if given.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/uml/guest-lib.sh"

threads=$1 table=$2 out=$3
shift 3
[ "$1" = -- ] && shift

nfsd_start "$threads" > /dev/null
for src in $(printf '%s\n' "$@" | grep -o '127\.0\.0\.[0-9]*' | sort -u); do
	add_source_addr "$src"
done


case $table in
none) ;;
per-host)
	ynl --do rule-append --json '{"addr4": "127.0.0.0", "prefix-len": 8, "per-host-len": 32}' >/dev/null
	;;
per-client)
	ynl --do rule-append --json \
		'{"addr4": "127.0.0.0", "prefix-len": 8, "per-host-len": 32, "per-client": true}' >/dev/null
	;;
class:*)
	IFS=, read -ra items <<< "${table#class:}"
	for item in "${items[@]}"; do
		name=${item%%=*}
		attrs=
		if [[ $name == *@* ]]; then
			attrs=", \"weight\": ${name#*@}"
			name=${name%%@*}
		fi
		if [[ $name == */* ]]; then
			attrs+=", \"limit\": ${name#*/}"
			name=${name%%/*}
		fi
		ynl --do class-new --json "{\"name\": \"$name\"$attrs}" > /dev/null
		IFS=+ read -ra addrs <<< "${item#*=}"
		for a in "${addrs[@]}"; do
			ynl --do rule-append --json \
				"{\"addr4\": \"$a\", \"prefix-len\": 32, \"class\": \"$name\"}" >/dev/null
		done
	done
	# Everyone else is a client of their own.
	ynl --do rule-append --json '{"addr4": "127.0.0.0", "prefix-len": 8, "per-host-len": 32}' >/dev/null
	;;
*) echo "guest-scenario: unknown table '$table'" >&2; exit 2 ;;
esac

"$top/tests/load/nfsfair-load" "$@" --json > /run/nfsfair-load.json
clients=null classes=null
if [ "$table" != none ]; then
	clients=$(ynl --dump client-get)
	classes=$(ynl --dump class-get)
fi
printf '{"load": %s, "clients": %s, "classes": %s}\n' "$(cat /run/nfsfair-load.json)" \
	"$clients" "$classes" > "$out"
