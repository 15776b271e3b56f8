#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Stands in for `chakra` during CI's valgrind step (see valgrind-wrap.sh).
exec /usr/bin/valgrind --error-exitcode=99 --leak-check=full \
	--errors-for-leak-kinds=definite,indirect --quiet "$CHAKRA_REAL_EXE" "$@"
