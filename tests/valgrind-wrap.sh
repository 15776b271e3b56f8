#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `meson test --wrapper` for CI's valgrind step. Test programs run under
# memcheck; test scripts (sh/bash/python) run as they are, but the `chakra`
# they call through CHAKRA_EXE runs under memcheck, so the library and the
# tools are checked without reporting the shell's own leaks.
here=$(cd "$(dirname "$0")" && pwd)
case "$(basename "$1")" in
sh|bash|dash|python3|python3.*)
	export CHAKRA_REAL_EXE="$CHAKRA_EXE"
	export CHAKRA_EXE="$here/valgrind-exe.sh"
	exec "$@" ;;
*)
	exec valgrind --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect --quiet "$@" ;;
esac
