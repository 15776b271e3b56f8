/* SPDX-License-Identifier: Apache-2.0 */
/* scan_names TRACE OUTPUT...: fail when any node name or string (string
 * attributes, inputs/outputs, metadata) of TRACE occurs in the bytes of an
 * OUTPUT (gzip outputs are inflated first). Strings shorter than 5 bytes,
 * numbers, and words that synth writes itself (op classes, collective
 * types, and parts of its attribute names and model keys, like "cpu_op" of
 * "is_cpu_op") are not searched: they say nothing about the model and
 * would match by chance. Prints how many strings were searched in how
 * many bytes. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "synth_impl.h"

typedef struct strs {
	char **s;
	size_t n, cap;
} strs;

static void add(strs *S, const char *s, size_t len)
{
	if (len < 5)
		return;
	int num = 1;
	for (size_t i = 0; i < len; i++)
		num &= isdigit((unsigned char)s[i]) || s[i] == '.' || s[i] == '-';
	if (num)
		return;
	char *c = strndup(s, len);
	/* What synth writes itself: attribute names, model keys. */
	static const char own[] =
		" is_cpu_op comm_type comm_size pg_name duration_nanos duration_micros chakra-synth-model"
		" compute_classes collectives collective_tokens collective_sequence compute_sequence"
		" node_type nodes_per_rank duration_quantum_ns heldout_loglik_per_symbol components"
		" weight mean fanin fanout nearest distance consumers first_consumer overlap lead tail"
		" COMP_NODE MEM_LOAD_NODE MEM_STORE_NODE METADATA_NODE INVALID_NODE ";
	if (chakra__sy_class_find(c) >= 0 || chakra_comm_type_from_name(c) >= 0 || strstr(own, c)) {
		free(c);
		return;
	}
	for (size_t i = 0; i < S->n; i++)
		if (!strcmp(S->s[i], c)) {
			free(c);
			return;
		}
	if (S->n == S->cap) {
		S->cap = S->cap ? S->cap * 2 : 256;
		S->s = realloc(S->s, S->cap * sizeof *S->s);
	}
	S->s[S->n++] = c;
}

static void add_attr(strs *S, const chakra_attr *a)
{
	const char *s;
	size_t len;
	if (chakra_attr_is_list(a)) {
		for (size_t i = 0; i < chakra_attr_list_len(a); i++)
			if (chakra_attr_list_string(a, i, &s, &len) == 0)
				add(S, s, len);
	} else if (chakra_attr_string(a, &s, &len) == 0) {
		add(S, s, len);
	}
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: scan_names TRACE OUTPUT...\n");
		return 2;
	}
	strs S = { 0 };
	chakra_reader *r;
	if (chakra_reader_open(&r, argv[1], NULL) < 0) {
		fprintf(stderr, "%s\n", r ? chakra_reader_errmsg(r) : argv[1]);
		return 2;
	}
	const chakra_metadata *md = chakra_reader_metadata(r);
	for (size_t i = 0; i < chakra_metadata_attr_count(md); i++)
		add_attr(&S, chakra_metadata_attr_at(md, i));
	const chakra_node *n;
	int rc;
	while ((rc = chakra_reader_next(r, &n)) > 0) {
		size_t len;
		const char *name = chakra_node_name(n, &len);
		add(&S, name, len);
		for (size_t i = 0; i < chakra_node_attr_count(n); i++)
			add_attr(&S, chakra_node_attr_at(n, i));
		for (int io = 0; io < 2; io++)
			for (int f = 0; f < 3; f++) {
				const char *s = chakra_node_io(n, io, f, &len);
				add(&S, s, len);
			}
	}
	chakra_reader_close(r);
	if (rc < 0)
		return 2;
	int bad = 0;
	size_t total = 0;
	for (int a = 2; a < argc; a++) {
		gzFile f = gzopen(argv[a], "rb");
		if (!f) {
			fprintf(stderr, "%s: cannot open\n", argv[a]);
			return 2;
		}
		size_t cap = 1 << 20, len = 0;
		char *buf = malloc(cap);
		int k;
		while ((k = gzread(f, buf + len, (unsigned)(cap - len))) > 0) {
			len += (size_t)k;
			if (len == cap)
				buf = realloc(buf, cap *= 2);
		}
		gzclose(f);
		total += len;
		for (size_t i = 0; i < S.n; i++) {
			const char *hit = memmem(buf, len, S.s[i], strlen(S.s[i]));
			if (hit) {
				fprintf(stderr, "%s: byte %zu: \"%s\" from %s\n", argv[a], (size_t)(hit - buf),
				        S.s[i], argv[1]);
				bad = 1;
			}
		}
		free(buf);
	}
	printf("scanned %zu bytes of %d file(s) for %zu strings of %s: %s\n", total, argc - 2, S.n,
	       argv[1], bad ? "FOUND" : "none found");
	for (size_t i = 0; i < S.n; i++)
		free(S.s[i]);
	free(S.s);
	return bad;
}
