#!/bin/bash
# nfsfair-ctl's command line, natively and without a kernel: usage is
# checked before any netlink, so every bad invocation exits 2 naming the
# argument, and restore --test reads a file without touching the table.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
ctl=$top/cli/nfsfair-ctl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s -C "$top/cli" > /dev/null || { echo "1..0 # cli/ does not build"; exit 1; }

# usage STATUS MESSAGE ARGS...: nfsfair-ctl ARGS exits STATUS saying MESSAGE.
usage() {
	local want=$1 msg=$2 status
	shift 2
	"$ctl" "$@" > "$tmp/out" 2> "$tmp/err"
	status=$?
	check "'$*': exit $want, '$msg'" eval '[ $status = "$want" ] && grep -qF -- "$msg" "$tmp/err"' ||
		diag "status $status: $(cat "$tmp/err")"
}

usage 2 "nfsfair-ctl: -L does not take -j TARGET" -L -j movers
usage 2 "nfsfair-ctl: -A needs -s SOURCE" -A -j movers
usage 2 "nfsfair-ctl: -A needs -j TARGET" -A -s 10.0.0.0/8
usage 2 "nfsfair-ctl: -s '10.0.0.1/8': host bits set past /8" -A -s 10.0.0.1/8 -j movers
usage 2 "nfsfair-ctl: -s '10.0.0.0/33': prefix length 33 is past /32" -A -s 10.0.0.0/33 -j movers
usage 2 "nfsfair-ctl: -s '::/129': prefix length 129 is past /128" -I -s ::/129 -j movers
usage 2 "nfsfair-ctl: -s '1.2.3': not an IPv4 or IPv6 address" -A -s 1.2.3 -j movers
usage 2 "nfsfair-ctl: -j 'per-host/0': per-host takes a length from 1 to 128" \
	-A -s 10.0.0.0/8 -j per-host/0
usage 2 "nfsfair-ctl: -j 'per-host/64' is past /32 for an IPv4 prefix" \
	-A -s 10.0.0.0/8 -j per-host/64
usage 2 "nfsfair-ctl: -N 'a-name-too-long-x': a class name is 1 to 15 bytes" \
	-N a-name-too-long-x
usage 2 "nfsfair-ctl: -j 'per-client/0': per-client takes a length from 1 to 128" \
	-A -s 10.0.0.0/8 -j per-client/0
usage 2 "nfsfair-ctl: -j 'per-client/129': per-client takes a length from 1 to 128" \
	-I -s ::/0 -j per-client/129
usage 2 "nfsfair-ctl: -j 'per-client/33' is past /32 for an IPv4 prefix" \
	-A -s 127.0.0.0/8 -j per-client/33
usage 2 "nfsfair-ctl: -j 'per-client/40' is past /32 for an IPv4 prefix" \
	-R 1 -s 127.0.0.0/8 -j per-client/40
usage 2 "nfsfair-ctl: -j 'per-client/x': per-client takes a length from 1 to 128" \
	-D -s 127.0.0.0/8 -j per-client/x
# Class names: the kernel's rule, refused before any netlink (issue 10).
names="a class name is letters, digits, '.', '_' and '-', starting with a letter or a digit"
usage 2 "nfsfair-ctl: -N 'per-client' is a target, not a class name" -N per-client
usage 2 "nfsfair-ctl: -N 'a b': $names" -N 'a b'
"$ctl" -N "$(printf 'x\n-F')" > "$tmp/out" 2> "$tmp/err"
status=$?
want="nfsfair-ctl: -N 'x\\x0a-F': $names"
check "-N 'x<newline>-F': exit 2, the newline quoted as \\x0a" eval \
	'[ $status = 2 ] && grep -qxF -- "$want" "$tmp/err"' || diag "$(cat "$tmp/err")"
usage 2 "nfsfair-ctl: -N 'default' is a target, not a class name" -N default
usage 2 "nfsfair-ctl: -N 'overflow' is a target, not a class name" -N overflow --weight 2
usage 2 "nfsfair-ctl: -E 'per-host' is a target, not a class name" -E per-host --weight 2
# -X takes any name an older kernel took (the kernel says if it exists):
# past the command line, to the kernel, which here has no family.
nofamily="nfsfair-ctl: this kernel has no 'nfsfair' netlink family"
usage 1 "$nofamily" -X .hidden
usage 1 "$nofamily" -X café
usage 1 "$nofamily" -X 'a b'
usage 2 "nfsfair-ctl: -X 'a-name-too-long-x': a class name is 1 to 15 bytes" -X a-name-too-long-x
usage 2 "nfsfair-ctl: -X '': a class name is 1 to 15 bytes" -X ''
usage 2 "nfsfair-ctl: -N '.hidden': $names" -N .hidden
usage 2 "nfsfair-ctl: -j 'default' is a target, not a class name" -A -s 10.0.0.0/8 -j default
usage 2 "nfsfair-ctl: -j 'a;b': $names" -I -s 10.0.0.0/8 -j 'a;b'
usage 2 "nfsfair-ctl: -j 'overflow' is a target, not a class name" \
	-C -s 127.0.0.0/8 -j overflow
usage 2 "nfsfair-ctl: -L does not take -j TARGET" -L -j per-client
usage 2 "nfsfair-ctl: -D takes NUM or -s SOURCE -j TARGET, not both" \
	-D 1 -s 127.0.0.0/8 -j per-client
usage 2 "nfsfair-ctl: -C needs -s SOURCE" -C -j per-client/24
usage 2 "nfsfair-ctl: -j 'a-name-too-long-x': a class name is 1 to 15 bytes" \
	-A -s 10.0.0.0/8 -j a-name-too-long-x
usage 2 "nfsfair-ctl: unknown option '--line'" -L --line
usage 2 "nfsfair-ctl: unknown option '--jso'" -L --jso
usage 2 "nfsfair-ctl: -L and -A cannot be combined" -L -A
usage 2 "nfsfair-ctl: unknown command 'lst'" lst
usage 2 "nfsfair-ctl: no command" -v
usage 2 "nfsfair-ctl: -I 'x': a position is a number from 1" -I x -s 10.0.0.0/8 -j movers
usage 2 "nfsfair-ctl: -R needs NUM" -R -s 10.0.0.0/8 -j movers
usage 2 "nfsfair-ctl: -R '0': a position is a number from 1" -R 0 -s 10.0.0.0/8 -j movers
usage 2 "nfsfair-ctl: -D needs NUM, or -s SOURCE and -j TARGET" -D -s 10.0.0.0/8
usage 2 "nfsfair-ctl: -D takes NUM or -s SOURCE -j TARGET, not both" -D 1 -s 10.0.0.0/8 -j x
usage 2 "nfsfair-ctl: -E needs --weight or --limit" -E movers
# --limit: 0 (none) to 8192, on -N and -E only
usage 2 "nfsfair-ctl: --limit 'x': a number from 0 to 8192" -N bulk --limit x
usage 2 "nfsfair-ctl: --limit '8193': a number from 0 to 8192" -E bulk --limit 8193
usage 2 "nfsfair-ctl: --limit '-1': a number from 0 to 8192" -N bulk --limit -1
usage 2 "nfsfair-ctl: --limit '4.5': a number from 0 to 8192" -E bulk --weight 2 --limit 4.5
usage 2 "nfsfair-ctl: --limit needs a value" -N bulk --limit
usage 2 "nfsfair-ctl: -A does not take --limit" -A -s 10.0.0.0/8 -j bulk --limit 4
usage 2 "nfsfair-ctl: classes does not take --limit" classes --limit 4
usage 2 "nfsfair-ctl: unknown option '--lim'" -N bulk --lim 4
usage 2 "nfsfair-ctl: -E: unexpected argument 'x'" -E bulk --limit 4 x
# --ids-per-host: 1 to 4096, with a per-client target only, on the verbs that make or
# find a rule; refused before any netlink, naming the argument
usage 2 "nfsfair-ctl: --ids-per-host '0': a number from 1 to 4096" \
	-A -s 127.0.0.0/8 -j per-client --ids-per-host 0
usage 2 "nfsfair-ctl: --ids-per-host '5000': a number from 1 to 4096" \
	-I -s 127.0.0.0/8 -j per-client --ids-per-host 5000
usage 2 "nfsfair-ctl: --ids-per-host '4097': a number from 1 to 4096" \
	-A -s 127.0.0.0/8 -j per-client --ids-per-host 4097
usage 2 "nfsfair-ctl: --ids-per-host 'x': a number from 1 to 4096" \
	-R 1 -s 127.0.0.0/8 -j per-client --ids-per-host=x
usage 2 "nfsfair-ctl: --ids-per-host '-1': a number from 1 to 4096" \
	-A -s 127.0.0.0/8 -j per-client --ids-per-host -1
usage 2 "nfsfair-ctl: --ids-per-host needs a value" -A -s 127.0.0.0/8 -j per-client --ids-per-host
usage 2 "nfsfair-ctl: -A --ids-per-host 2 needs -j per-client[/N], not -j per-host" \
	-A -s 127.0.0.0/8 --ids-per-host 2 -j per-host
usage 2 "nfsfair-ctl: -R --ids-per-host 2 needs -j per-client[/N], not -j movers" \
	-R 1 -s 127.0.0.0/8 -j movers --ids-per-host 2
usage 2 "nfsfair-ctl: -C --ids-per-host 8 needs -j per-client[/N], not -j per-host/24" \
	-C -s 10.0.0.0/8 -j per-host/24 --ids-per-host 8
usage 2 "nfsfair-ctl: -D --ids-per-host 2 needs -j per-client[/N]" -D 1 --ids-per-host 2
usage 2 "nfsfair-ctl: -L does not take --ids-per-host" -L --ids-per-host 2
usage 2 "nfsfair-ctl: -F does not take --ids-per-host" -F --ids-per-host 2
usage 2 "nfsfair-ctl: -N does not take --ids-per-host" -N movers --ids-per-host 2
usage 2 "nfsfair-ctl: unknown option '--ids'" -A -s 127.0.0.0/8 -j per-client --ids 2
# good ones reach the kernel, which here has no family
usage 1 "$nofamily" -A -s 127.0.0.0/8 -j per-client --ids-per-host 4096
usage 1 "$nofamily" -I 2 -s 127.0.0.0/8 --ids-per-host 1 -j per-client/24
usage 1 "$nofamily" -D -s 127.0.0.0/8 -j per-client --ids-per-host 2
usage 1 "$nofamily" -C -s ::/0 -j per-client/64 --ids-per-host 4
# --pools: stats only, not with --openmetrics
usage 2 "nfsfair-ctl: stats --openmetrics does not take --pools" stats --pools --openmetrics
usage 2 "nfsfair-ctl: -L does not take --pools" -L --pools
usage 2 "nfsfair-ctl: --weight '0': a number from 1 to 1000" -N movers --weight 0
usage 2 "nfsfair-ctl: --origin '256': a number from 0 to 255" -F --origin 256
usage 2 "nfsfair-ctl: -S does not take --json" -S --json
usage 2 "nfsfair-ctl: -C does not take --origin" -C -s 10.0.0.0/8 -j x --origin 1
usage 2 "nfsfair-ctl: stats does not take -s SOURCE" stats -s 10.0.0.0/8
usage 2 "nfsfair-ctl: stats: unexpected argument 'b'" stats a b
usage 2 "nfsfair-ctl: explain needs ADDR|HOST" explain
usage 2 "nfsfair-ctl: -w 'x': a number from 1 to 3600" stats -w x
usage 2 "nfsfair-ctl: -s needs a value" -A -j movers -s

check "--help exits 0 and lists every verb" eval \
	'"$ctl" --help > "$tmp/help" && grep -c -e "^  -[AIRDCLSFZNEX]," -e "^  [a-z]" "$tmp/help" | grep -qx 18'
check "--help names the targets per-host[/N] and per-client[/N]" \
	grep -q '^TARGET: a class name, per-host\[/N\], or per-client\[/N\]' "$tmp/help"
check "--help: --ids-per-host on -A -I -R -D -C, and its range and default" eval \
	'[ "$(grep -c "^  -[AIRDC], .* -j TARGET \[--ids-per-host N\]" "$tmp/help")" = 5 ] &&
	 grep -q "^--ids-per-host N: with per-client," "$tmp/help" &&
	 grep -q "them: 1 to 4096, default 4;" "$tmp/help"'

cat > "$tmp/good" <<'SAVE'
# a comment
-N movers --weight 2
-N interactive --weight 1
-N bulk --weight 1 --limit 4

-A -s ::1/128 -j interactive
-A -s 127.0.0.2/32 -j movers
-A -s 127.0.0.3/32 -j bulk
-A -s 127.0.0.0/8 -j per-client
-A -s 10.0.0.0/8 -j per-host/24 --origin 7
-A -s 2001:db8::/32 -j per-client/64 --origin 7
SAVE
check "restore --test of a good file: 3 classes, 6 rules" eval \
	'"$ctl" restore --test "$tmp/good" | grep -qx "$tmp/good: 3 classes, 6 rules: OK"'
sed '7s|.*|-A -s 127.0.0.2/8 -j movers|' "$tmp/good" > "$tmp/bad"
usage 1 "nfsfair-ctl: $tmp/bad:7: '127.0.0.2/8': host bits set past /8" restore --test "$tmp/bad"
printf -- '-N a\n-N b --weight x\n' > "$tmp/bad2"
usage 1 "nfsfair-ctl: $tmp/bad2:2: 'x': a weight is 1 to 1000" restore --test "$tmp/bad2"
printf -- '-A -s 127.0.0.0/8 -j per-client/33\n' > "$tmp/bad4"
usage 1 "nfsfair-ctl: $tmp/bad4:1: 'per-client/33' is past /32 for an IPv4 prefix" \
	restore --test "$tmp/bad4"
printf -- '-N a\n-N default --weight 2\n' > "$tmp/names1"
usage 1 "nfsfair-ctl: $tmp/names1:2: 'default' is a target, not a class name" \
	restore --test "$tmp/names1"
printf -- '-N .a\n' > "$tmp/names2"
usage 1 "nfsfair-ctl: $tmp/names2:1: '.a': $names" restore --test "$tmp/names2"
printf -- '-A -s 10.0.0.0/8 -j per-host\n-A -s 127.0.0.0/8 -j overflow\n' > "$tmp/names3"
usage 1 "nfsfair-ctl: $tmp/names3:2: 'overflow' is a target, not a class name" \
	restore --test "$tmp/names3"
printf -- '-N a\n-N a\n' > "$tmp/bad3"
usage 1 "nfsfair-ctl: $tmp/bad3:2: class 'a' again (first on line 1)" restore --test "$tmp/bad3"
check "restore --test from stdin" eval \
	'"$ctl" restore --test < "$tmp/good" | grep -qx "<stdin>: 3 classes, 6 rules: OK"'
printf -- '-N a --limit 4\n-N b --limit 8193\n' > "$tmp/bad5"
usage 1 "nfsfair-ctl: $tmp/bad5:2: '8193': a limit is 0 to 8192" restore --test "$tmp/bad5"
printf -- '-N a --weight 2 --limit\n' > "$tmp/bad6"
usage 1 "nfsfair-ctl: $tmp/bad6:1: --limit needs a value" restore --test "$tmp/bad6"
usage 1 "nfsfair-ctl: $tmp/none: No such file or directory" restore --test "$tmp/none"
# --ids-per-host in the save format: per-client rules only, 1 to 4096
printf -- '%s\n' "-A -s 127.0.0.0/8 -j per-client --ids-per-host 2" \
	"-A -s 10.0.0.0/8 --ids-per-host 4096 -j per-client/24 --origin 7" > "$tmp/ids"
check "restore --test: --ids-per-host on per-client rules" eval \
	'"$ctl" restore --test "$tmp/ids" | grep -qx "$tmp/ids: 0 classes, 2 rules: OK"'
printf -- '-A -s 127.0.0.0/8 -j per-client\n-A -s 10.0.0.0/8 -j per-host --ids-per-host 2\n' \
	> "$tmp/ids2"
usage 1 "nfsfair-ctl: $tmp/ids2:2: --ids-per-host 2 needs -j per-client[/N], not -j per-host" \
	restore --test "$tmp/ids2"
printf -- '-A -s 127.0.0.0/8 -j per-client --ids-per-host 0\n' > "$tmp/ids3"
usage 1 "nfsfair-ctl: $tmp/ids3:1: '0': ids-per-host is 1 to 4096" restore --test "$tmp/ids3"
printf -- '-A -s 127.0.0.0/8 -j per-client --ids-per-host 5000\n' > "$tmp/ids4"
usage 1 "nfsfair-ctl: $tmp/ids4:1: '5000': ids-per-host is 1 to 4096" restore --test "$tmp/ids4"
# stats --openmetrics and --output: what they cannot go with
usage 2 "nfsfair-ctl: stats --openmetrics does not take -w" stats --openmetrics -w 5
usage 2 "nfsfair-ctl: stats --openmetrics does not take --count" stats --count 2 --openmetrics
usage 2 "nfsfair-ctl: stats --openmetrics does not take --json" stats movers --openmetrics --json
usage 2 "nfsfair-ctl: stats --output needs --openmetrics" stats --output "$tmp/x.prom"
usage 2 "nfsfair-ctl: -L does not take --openmetrics" -L --openmetrics
usage 2 "nfsfair-ctl: classes does not take --output" classes --output "$tmp/x.prom"
tap_done
