/* SPDX-License-Identifier: Apache-2.0 */
/* The one binary min-heap of the tree, as a template: the feeder's ready
 * queue (lib/feeder/ftab.c), the simulator's event queue (lib/sim) and
 * the one Kahn's order (lib/graph/topo.c) instantiate it for their own
 * entry type and order. It works on the caller's array: growing it stays
 * with the caller (each has its own allocator). Inline, so the compare is
 * too: the feeder's and simulator's benchmarks depend on it.
 *
 * CHAKRA__HEAP_DEFINE(name, T, LESS) defines, for LESS(const T *, const T *):
 *   name_push(T *a, size_t *n, T x)   a must have room for *n + 1 entries
 *   name_pop(T *a, size_t *n) -> T    *n > 0; the least entry
 * Pop is Floyd's: the hole goes down to a leaf along the lesser children
 * (one compare per level), then the last entry rises from there; it came
 * from the bottom, so it rarely rises far. */
#ifndef CHAKRA_HEAP_H
#define CHAKRA_HEAP_H

#include <stddef.h>

#define CHAKRA__HEAP_DEFINE(name, T, LESS)                                           \
	static inline void name##_rise(T *a, size_t i, T x)                          \
	{                                                                            \
		while (i > 0) {                                                      \
			size_t p_ = (i - 1) / 2;                                     \
			if (!LESS(&x, &a[p_]))                                       \
				break;                                               \
			a[i] = a[p_];                                                \
			i = p_;                                                      \
		}                                                                    \
		a[i] = x;                                                            \
	}                                                                            \
	static inline void name##_push(T *a, size_t *n, T x)                         \
	{                                                                            \
		name##_rise(a, (*n)++, x);                                           \
	}                                                                            \
	static inline T name##_pop(T *a, size_t *n)                                  \
	{                                                                            \
		T top_ = a[0];                                                       \
		size_t m_ = --*n, i_ = 0;                                            \
		if (!m_)                                                             \
			return top_;                                                 \
		for (;;) {                                                           \
			size_t c_ = 2 * i_ + 1;                                      \
			if (c_ >= m_)                                                \
				break;                                               \
			if (c_ + 1 < m_ && LESS(&a[c_ + 1], &a[c_]))                 \
				c_++;                                                \
			a[i_] = a[c_];                                               \
			i_ = c_;                                                     \
		}                                                                    \
		name##_rise(a, i_, a[m_]);                                           \
		return top_;                                                         \
	}

#endif
