# SPDX-License-Identifier: Apache-2.0
# Sourced by shell tests: `. "$(dirname "$0")/../need.sh" && need_data REL...`
# skips the test (meson's exit status 77) when an input it needs is not in
# tests/data ($CHAKRA_SHARED/REL), e.g. in a copy of the sources without the
# test data: a test that needs something absent skips, never fails oddly.
# Without CHAKRA_SHARED (a script run by hand with its own paths) it checks
# nothing.
need_data() {
	[ -n "${CHAKRA_SHARED:-}" ] || return 0
	for _rel in "$@"; do
		if [ ! -e "$CHAKRA_SHARED/$_rel" ]; then
			echo "SKIP: test input $CHAKRA_SHARED/$_rel is absent (tests/data/SOURCES.md)"
			exit 77
		fi
	done
}
