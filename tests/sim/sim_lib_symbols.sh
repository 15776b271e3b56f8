#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# libchakra-sim.so exports only the simulator's public names (chakra_sim_*),
# and the core libchakra.so stays free of libyaml and YAJL (they belong to
# the simulator's configuration parsers).
set -u
sim=$1 core=$2
command -v nm >/dev/null 2>&1 && command -v readelf >/dev/null 2>&1 || { echo "no nm/readelf"; exit 77; }
fails=0
other=$(nm -D --defined-only "$sim" | awk '$2 ~ /^[TDBRW]$/ && $3 !~ /^chakra_sim_/ { print $3 }')
if [ -n "$other" ]; then echo "FAIL $sim exports: $other"; fails=$((fails + 1)); else echo "ok   only chakra_sim_* exported"; fi
n=$(nm -D --defined-only "$sim" | grep -c ' T chakra_sim_')
[ "$n" -ge 20 ] && echo "ok   $n chakra_sim_* functions" || { echo "FAIL only $n functions exported"; fails=$((fails + 1)); }
readelf -d "$sim" | grep -q 'NEEDED.*libchakra\.so\.' && echo "ok   libchakra-sim needs libchakra.so" ||
	{ echo "FAIL libchakra-sim does not link libchakra.so"; fails=$((fails + 1)); }
if readelf -d "$core" | grep -E 'NEEDED.*(yaml|yajl)'; then
	echo "FAIL the core library links libyaml or YAJL"; fails=$((fails + 1))
else
	echo "ok   core free of libyaml and YAJL"
fi
exit $fails
