#!/bin/bash
# The README's commands work on a fresh clone, in either order (issue 13):
# every `make TARGET` the README names is a target of the Makefile, and a
# target whose recipe runs a script under demo/ or tests/ that runs (itself
# or through the scripts it calls) a binary built by `make userspace`
# depends on userspace. Only make's database is read: nothing is built.
#   NFSFAIR_MAKEFILE, NFSFAIR_README: check these instead (the self-test
#   at the end points them at broken copies).
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
makefile=${NFSFAIR_MAKEFILE:-$top/Makefile}
readme=${NFSFAIR_README:-$top/README.md}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# database DIR [MAKE ARGS]: make -p for DIR. -q and a goal with no rule:
# make reads the makefiles, prints what it read and runs no recipe. The
# caller's MAKEFLAGS (under make check) must not reach it.
database() {
	local dir=$1
	shift
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -pRrq \
		-C "$dir" "$@" .nfsfair-no-such-goal 2> /dev/null
	return 0
}

# parse DB: splits a database into $tmp/vars (NAME<tab>VALUE), $tmp/deps
# (TARGET PREREQ...) and $tmp/recipes (TARGET<tab>LINE), real targets only.
parse() {
	awk -v vars="$tmp/vars" -v deps="$tmp/deps" -v recipes="$tmp/recipes" '
	/^# Variables/ { sec = "v"; next }
	/^# Files/ { sec = "f"; next }
	/^# files hash-table stats/ { sec = ""; next }
	sec == "v" && /^[A-Za-z_][A-Za-z0-9_]* :?= / {
		print $1 "\t" substr($0, index($0, "=") + 2) > vars; next }
	sec != "f" { next }
	/^# Not a target:/ { skip = 1; next }
	/^$/ { target = ""; skip = 0; next }
	/^[^#\t][^:]*:/ && !skip && target == "" {
		target = substr($0, 1, index($0, ":") - 1)
		print target " " substr($0, index($0, ":") + 1) > deps; next }
	/^\t/ && target != "" { print target "\t" substr($0, 2) > recipes }
	' "$1"
	touch "$tmp/vars" "$tmp/deps" "$tmp/recipes"
}

database "$top" -f "$makefile" > "$tmp/db"
parse "$tmp/db"
declare -A var prereqs
while IFS=$'\t' read -r name value; do var[$name]=$value; done < "$tmp/vars"
while read -r target rest; do prereqs[$target]=${rest//|/}; done < "$tmp/deps"
require "make reads $makefile and finds its targets" [ "${#prereqs[@]}" -gt 0 ]

# --- a. The README's `make WORD`s (not options, not VAR=value) are targets.
grep -oE '(^|[^[:alnum:]_-])make +[[:alnum:]][[:alnum:]_.=-]*' "$readme" |
	sed -E 's/.*make +//; s/\.+$//' | grep -v = | sort -u > "$tmp/readme-targets"
require "README names some make targets" [ -s "$tmp/readme-targets" ]
while read -r t; do
	check "README's 'make $t' is a target of the Makefile" [ -n "${prereqs[$t]+set}" ]
done < "$tmp/readme-targets"

# --- b. Targets that run a script which runs a userspace binary build it.

# What make userspace builds: each of USERSPACE_DIRS's default goal, or
# that goal's prerequisites when it is phony (all: nfsfair-ctl).
: > "$tmp/products"
for dir in ${var[USERSPACE_DIRS]-}; do
	database "$top/$dir" > "$tmp/sub-db"
	goal=$(sed -n 's/^\.DEFAULT_GOAL := //p' "$tmp/sub-db")
	phony=$(sed -n 's/^\.PHONY: *//p' "$tmp/sub-db")
	files=$goal
	if [[ " $phony " == *" $goal "* ]]; then
		files=$(sed -n "s/^$goal: *//p" "$tmp/sub-db" | head -n 1)
	fi
	for f in $files; do echo "${dir%/}/$f"; done >> "$tmp/products"
done
require "USERSPACE_DIRS' Makefiles name what they build" [ -s "$tmp/products" ]
diag "built by make userspace: $(tr '\n' ' ' < "$tmp/products")"
# The same as one extended regex: p1|p2..., dots escaped.
products=$(sed 's/[.[\*^$+?(){}|]/\\&/g' "$tmp/products" | paste -sd '|')

# expand LINE: a recipe line with $(VAR) and ${VAR} replaced from the
# database (SUITES holds the suites' paths); at most 20, in case of a loop.
expand() {
	local s=$1 n=0 re='\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]'
	while [[ $s =~ $re ]] && [ $((n += 1)) -le 20 ]; do
		s=${s//"${BASH_REMATCH[0]}"/${var[${BASH_REMATCH[1]}]-}}
	done
	printf '%s\n' "$s"
}

# paths_in: the files under demo/ and tests/ that stdin names from the top
# ("$top/demo/NAME", "tests/bench/NAME"); directories dropped.
paths_in() {
	grep -oE '(^|[^[:alnum:]_.-])(demo|tests)/[[:alnum:]_./+-]+' |
		sed -E 's/^[^[:alpha:]]//; s/\.+$//' | sort -u |
		while read -r p; do [ -f "$top/$p" ] && echo "$p"; done
}

# refs FILE: what paths_in finds in FILE, and its "$(dirname "$0")/X" paths.
# Kept in $tmp/refs: several targets share scripts.
mkdir "$tmp/refs"
refs() {
	local f=$1 rel cache=$tmp/refs/${1//\//%}
	[ -f "$cache" ] || {
		paths_in < "$top/$f"
		# shellcheck disable=SC2016 # a literal $0, in the script's text
		grep -oE 'dirname "\$0"\)/[[:alnum:]_./-]+' "$top/$f" | sed 's/.*)\///' |
			while read -r rel; do
				realpath -m --relative-to="$top" "$top/$(dirname "$f")/$rel"
			done | paths_in
	} > "$cache"
	cat "$cache"
}

# scripts TARGET: the scripts TARGET's recipe runs, and those they call.
scripts() {
	local -A seen=()
	local -a queue
	local f
	mapfile -t queue < <(awk -F '\t' -v t="$1" '$1 == t { print substr($0, length(t) + 2) }' \
		"$tmp/recipes" | while IFS= read -r line; do expand "$line"; done | paths_in)
	while [ "${#queue[@]}" -gt 0 ]; do
		f=${queue[0]} queue=("${queue[@]:1}")
		[ -n "${seen[$f]-}" ] && continue
		seen[$f]=1
		echo "$f"
		mapfile -t -O "${#queue[@]}" queue < <(refs "$f")
	done
}

# needs TARGET: its prerequisites, transitively, per make's database.
needs() {
	local -A seen=()
	local -a queue more
	local t
	read -ra queue <<< "${prereqs[$1]-}"
	while [ "${#queue[@]}" -gt 0 ]; do
		t=${queue[0]} queue=("${queue[@]:1}")
		[ -n "${seen[$t]-}" ] && continue
		seen[$t]=1
		echo "$t"
		read -ra more <<< "${prereqs[$t]-}"
		queue+=("${more[@]}")
	done
}

needs_userspace() {
	needs "$1" | grep -qx userspace
}

checked=0
for target in $(printf '%s\n' "${!prereqs[@]}" | sort); do
	scripts "$target" > "$tmp/scripts"
	# Which script names which product as a whole path ($top/DIR/NAME).
	while read -r s; do
		grep -oE "(^|[^[:alnum:]_.-])($products)([^[:alnum:]_./-]|\$)" "$top/$s" |
			grep -oE "$products" | sort -u | sed "s|^|$s runs |"
	done < "$tmp/scripts" > "$tmp/uses"
	[ -s "$tmp/uses" ] || continue
	checked=$((checked + 1))
	bins=$(sed 's/.* runs //' "$tmp/uses" | sort -u | tr '\n' ' ')
	check "make $target depends on userspace: its scripts run ${bins% }" \
		needs_userspace "$target" || {
		diag "make $target needs: $(needs "$target" | tr '\n' ' ')"
		while read -r u; do diag "$u"; done < "$tmp/uses"
	}
done
check "some target runs the userspace binaries (the analysis found them)" [ "$checked" -gt 0 ]

# --- Self-test, against the real Makefile only: a copy with issue 13's
# demo rule and a README naming a missing target must fail just those.
if [ -z "${NFSFAIR_MAKEFILE:-}${NFSFAIR_README:-}" ]; then
	sed 's/^demo:.*/demo: kernel/' "$makefile" > "$tmp/Makefile.broken"
	{ cat "$readme"; echo '    make no-such-target'; } > "$tmp/README.broken"
	require "self-test: the copy's demo rule is broken" \
		[ "$(grep '^demo:' "$tmp/Makefile.broken")" = "demo: kernel" ]
	NFSFAIR_MAKEFILE=$tmp/Makefile.broken NFSFAIR_README=$tmp/README.broken \
		bash "$0" > "$tmp/self.out" 2>&1
	rc=$?
	check "self-test: the broken copies make the suite exit non-zero" [ "$rc" -ne 0 ]
	check "self-test: demo without userspace is caught" \
		grep -q '^not ok .* - make demo depends on userspace' "$tmp/self.out"
	check "self-test: the README's 'make no-such-target' is caught" \
		grep -q "^not ok .* - README's 'make no-such-target'" "$tmp/self.out"
	check "self-test: nothing else fails" [ "$(grep -c '^not ok' "$tmp/self.out")" -eq 2 ] ||
		sed 's/^/# self-test: /' "$tmp/self.out"
fi
tap_done
