/* SPDX-License-Identifier: Apache-2.0 */
/* Anonymize: the same graph with nothing that names the model.
 * Node names become op classes; kept attributes are the ones simulators
 * read (below), all others, the inputs/outputs (values, shapes, types) and
 * the metadata's attributes are dropped. pg_name is kept only when it is a
 * group number (what converters and ASTRA-sim use), since a name could say
 * what the group is for.
 *
 * Also here: the simulator-ready copy used by `synth compare`. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "chakra/attrs.h"
#include "synth_impl.h"

static const char *const keep[] = {
	CHAKRA_ATTR_NAME_IS_CPU_OP, CHAKRA_ATTR_NAME_COMM_TYPE, CHAKRA_ATTR_NAME_COMM_SIZE,
	CHAKRA_ATTR_NAME_COMM_SRC, CHAKRA_ATTR_NAME_COMM_DST, CHAKRA_ATTR_NAME_COMM_TAG,
	CHAKRA_ATTR_NAME_COMM_PRIORITY, CHAKRA_ATTR_NAME_INVOLVED_DIM, CHAKRA_ATTR_NAME_NUM_OPS,
	CHAKRA_ATTR_NAME_TENSOR_SIZE, CHAKRA_ATTR_NAME_DURATION_NANOS, CHAKRA_ATTR_NAME_PG_NAME,
};

static int kept(const char *name)
{
	for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
		if (!strcmp(name, keep[i]))
			return 1;
	return 0;
}

static int all_digits(const char *s, size_t n)
{
	if (!n || n > 9)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Factor in [1 - p, 1 + p] from a 64-bit hash. */
static double factor(double p, uint64_t h)
{
	double u = (double)(h >> 11) * (1.0 / 9007199254740992.0);
	return 1.0 + p * (2.0 * u - 1.0);
}

static uint64_t scaled(uint64_t v, double f)
{
	double x = floor((double)v * f + 0.5);
	return x < 0 ? 0 : x >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)x;
}

static const size_t anon_opts_size[2] = { 0, sizeof(chakra_synth_anonymize_options) };
static const chakra_synth_anonymize_options anon_defaults = CHAKRA_SYNTH_ANONYMIZE_OPTIONS_INIT;

int chakra_synth_anonymize_options_init(chakra_synth_anonymize_options *opts, unsigned version)
{
	return chakra__opts_init(opts, version, &anon_defaults, anon_opts_size, 2);
}

static int synth_anonymize_impl(const char *in, const char *out, const chakra_synth_anonymize_options *opts, chakra_synth_anonymize_stats *stats, char *err, size_t errlen)
{
	chakra_synth_anonymize_options o;
	if (chakra__opts_copy(&o, sizeof o, opts, &anon_defaults, anon_opts_size, 2) < 0)
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "anonymize options: unknown version");
	if (!(o.perturb >= 0 && o.perturb <= 0.5))
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "perturbation bound must be in [0, 0.5]");
	/* Refused here rather than by the writer: nothing is opened then. */
	struct stat sb;
	if (!o.overwrite && strcmp(out, "-") && stat(out, &sb) == 0 && S_ISREG(sb.st_mode))
		return chakra__sy_err(err, errlen, CHAKRA_EIO, "%s: exists (not replaced without overwrite)",
		                      out);
	chakra_synth_anonymize_stats st;
	memset(&st, 0, sizeof st);
	chakra_reader *r = NULL;
	chakra_writer *w = NULL;
	chakra_builder *b = chakra_builder_new();
	int rc = b ? chakra_reader_open(&r, in, NULL) : CHAKRA_ENOMEM;
	if (rc < 0) {
		rc = chakra__sy_err(err, errlen, rc, "%s", r ? chakra_reader_errmsg(r) : chakra_strerror(rc));
		goto out;
	}
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.gzip = o.gzip;
	wo.overwrite = o.overwrite;
	if ((rc = chakra_writer_open(&w, out, &wo)) < 0)
		goto werr;
	size_t vl;
	const char *ver = chakra_metadata_version(chakra_reader_metadata(r), &vl);
	char vbuf[64];
	/* The version is a schema version ("0.0.4"); anything else is dropped. */
	int ok = vl < sizeof vbuf;
	for (size_t i = 0; i < vl && ok; i++)
		ok = isdigit((unsigned char)ver[i]) || ver[i] == '.';
	snprintf(vbuf, sizeof vbuf, "%.*s", ok ? (int)vl : 0, ok ? ver : "");
	if ((rc = chakra_writer_write_metadata(w, vbuf, NULL)) < 0)
		goto werr;
	st.attrs_dropped += chakra_metadata_attr_count(chakra_reader_metadata(r));
	const chakra_node *n;
	uint64_t index = 0;
	while ((rc = chakra_reader_next(r, &n)) > 0) {
		st.nodes++;
		double fd = o.perturb > 0 ? factor(o.perturb, mix64(o.seed ^ mix64(index))) : 1.0;
		index++;
		chakra_builder_reset(b);
		chakra_builder_set_id(b, chakra_node_id(n));
		const char *cls = chakra_synth_op_class(n);
		chakra_builder_set_name(b, cls, (size_t)-1);
		st.names++;
		chakra_builder_set_type(b, chakra_node_type_of(n));
		chakra_builder_set_start_time_micros(b, chakra_node_start_time_micros(n));
		chakra_builder_set_duration_micros(b, scaled(chakra_node_duration_micros(n), fd));
		const uint64_t *d = chakra_node_data_deps(n);
		for (size_t i = 0; i < chakra_node_data_dep_count(n); i++)
			chakra_builder_add_data_dep(b, d[i]);
		d = chakra_node_ctrl_deps(n);
		for (size_t i = 0; i < chakra_node_ctrl_dep_count(n); i++)
			chakra_builder_add_ctrl_dep(b, d[i]);
		if (chakra_node_has_io(n, CHAKRA_IO_INPUTS) || chakra_node_has_io(n, CHAKRA_IO_OUTPUTS))
			st.io_dropped++;
		for (size_t i = 0; i < chakra_node_attr_count(n); i++) {
			const chakra_attr *a = chakra_node_attr_at(n, i);
			const char *an = chakra_attr_name(a, NULL);
			if (!kept(an)) {
				st.attrs_dropped++;
				continue;
			}
			chakra_attr_kind k = chakra_attr_kind_of(a);
			uint64_t u;
			if (!strcmp(an, CHAKRA_ATTR_NAME_PG_NAME)) {
				const char *s;
				size_t sl;
				if (chakra_attr_string(a, &s, &sl) < 0 || !all_digits(s, sl)) {
					st.pg_dropped++;
					st.attrs_dropped++;
					continue;
				}
			} else if (o.perturb > 0 && !chakra_attr_is_list(a) && k != CHAKRA_ATTR_NONE &&
			           (!strcmp(an, CHAKRA_ATTR_NAME_COMM_SIZE) ||
			            !strcmp(an, CHAKRA_ATTR_NAME_DURATION_NANOS) ||
			            !strcmp(an, CHAKRA_ATTR_NAME_NUM_OPS) ||
			            !strcmp(an, CHAKRA_ATTR_NAME_TENSOR_SIZE)) &&
			           chakra_attr_uint(a, &u) == 0) {
				/* A message size gets the factor of its value, so every
				 * rank of a group still agrees; compute gets the node's. */
				double f = !strcmp(an, CHAKRA_ATTR_NAME_COMM_SIZE)
				               ? factor(o.perturb, mix64(o.seed ^ mix64(u ^ 0x5151)))
				               : fd;
				uint64_t v = scaled(u, f);
				if (k == CHAKRA_ATTR_DOUBLE || k == CHAKRA_ATTR_FLOAT)
					rc = chakra_builder_attr_double(b, an, k, (double)v);
				else if (v > INT64_MAX || k == CHAKRA_ATTR_UINT64 || k == CHAKRA_ATTR_UINT32 ||
				         k == CHAKRA_ATTR_FIXED64 || k == CHAKRA_ATTR_FIXED32)
					rc = chakra_builder_attr_uint(b, an, k, v > UINT32_MAX &&
					                                              (k == CHAKRA_ATTR_UINT32 ||
					                                               k == CHAKRA_ATTR_FIXED32)
					                                          ? UINT32_MAX
					                                          : v);
				else
					rc = chakra_builder_attr_int(b, an, k,
					                             (k == CHAKRA_ATTR_INT32 || k == CHAKRA_ATTR_SINT32 ||
					                              k == CHAKRA_ATTR_SFIXED32) && v > INT32_MAX
					                                 ? INT32_MAX
					                                 : (int64_t)v);
				if (rc < 0)
					goto werr;
				continue;
			}
			if ((rc = chakra_builder_attr_copy(b, a)) < 0)
				goto werr;
		}
		if ((rc = chakra_writer_write_node(w, b)) < 0)
			goto werr;
	}
	if (rc < 0) {
		rc = chakra__sy_err(err, errlen, rc, "%s", chakra_reader_errmsg(r));
		goto out;
	}
	if ((rc = chakra_writer_finish(w)) < 0)
		goto werr;
	if (stats)
		*stats = st;
	goto out;
werr:
	rc = chakra__sy_err(err, errlen, rc, "%s", w ? chakra_writer_errmsg(w) : chakra_strerror(rc));
out:
	chakra_writer_close(w);
	chakra_reader_close(r);
	chakra_builder_free(b);
	return rc;
}

/* Every failure comes with a message (out of memory included). */
int chakra_synth_anonymize(const char *in, const char *out,
                           const chakra_synth_anonymize_options *opts,
                           chakra_synth_anonymize_stats *stats, char *err, size_t errlen)
{
	if (!in || !out)
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "%s: NULL argument", __func__);
	if (errlen)
		err[0] = 0;
	return chakra__sy_msg(synth_anonymize_impl(in, out, opts, stats, err, errlen), err, errlen);
}

static int synth_simready_impl(const char *in, const char *out, int overwrite, uint64_t *changed, char *err, size_t errlen)
{
	chakra_reader *r = NULL;
	chakra_writer *w = NULL;
	chakra_builder *b = chakra_builder_new();
	uint64_t ch = 0;
	int rc = b ? chakra_reader_open(&r, in, NULL) : CHAKRA_ENOMEM;
	if (rc < 0) {
		rc = chakra__sy_err(err, errlen, rc, "%s", r ? chakra_reader_errmsg(r) : chakra_strerror(rc));
		goto out;
	}
	chakra_writer_options wo = CHAKRA_WRITER_OPTIONS_INIT;
	wo.overwrite = overwrite;
	if ((rc = chakra_writer_open(&w, out, &wo)) < 0 ||
	    (rc = chakra_writer_copy_metadata(w, chakra_reader_metadata(r))) < 0)
		goto werr;
	const chakra_node *n;
	while ((rc = chakra_reader_next(r, &n)) > 0) {
		int64_t ct;
		if ((rc = chakra_builder_copy_node(b, n)) < 0)
			goto werr;
		if (chakra_node_type_of(n) == CHAKRA_COMM_COLL_NODE && chakra_node_comm_type(n, &ct) < 0) {
			chakra_builder_set_type(b, CHAKRA_COMP_NODE);
			ch++;
		}
		if ((rc = chakra_writer_write_node(w, b)) < 0)
			goto werr;
	}
	if (rc < 0) {
		rc = chakra__sy_err(err, errlen, rc, "%s", chakra_reader_errmsg(r));
		goto out;
	}
	if ((rc = chakra_writer_finish(w)) < 0)
		goto werr;
	if (changed)
		*changed = ch;
	goto out;
werr:
	rc = chakra__sy_err(err, errlen, rc, "%s", w ? chakra_writer_errmsg(w) : chakra_strerror(rc));
out:
	chakra_writer_close(w);
	chakra_reader_close(r);
	chakra_builder_free(b);
	return rc;
}

/* Every failure comes with a message (out of memory included). */
int chakra_synth_simready(const char *in, const char *out, int overwrite, uint64_t *changed,
                          char *err, size_t errlen)
{
	if (!in || !out)
		return chakra__sy_err(err, errlen, CHAKRA_EINVAL, "%s: NULL argument", __func__);
	if (errlen)
		err[0] = 0;
	return chakra__sy_msg(synth_simready_impl(in, out, overwrite, changed, err, errlen), err, errlen);
}
