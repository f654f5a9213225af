/* Other tools' results as result sets, so that published or earlier figures
 * stand beside a new run in `report`: bonnie++ CSV lines (the 1.03 form of
 * 27 fields, the 1.9x form of 48 and the 1.98 form of 50; "+++++" is "too
 * fast to measure", not a number) and fio's JSON output. Each becomes a set
 * of command "import" with one repeat per variant: n = 1, no statistics,
 * and the report says so. Pure functions of the text, fuzzed
 * (fuzz/fuzz_import_*.c). */
#include "report/report.h"
#include "util/escape.h"
#include "util/macro.h"
#include "util/safefile.h"
#include "util/strutil.h"
#include "result/bonnie_csv.h"
#include "result/fio_json.h"
#include "result/result.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the same bound as result.json */
#define IMPORT_MAX_BYTES SB_RESULT_MAX_BYTES

static struct sb_resultset *import_set(const char *name, const char *tool)
{
	struct sb_resultset *rs = calloc(1, sizeof(*rs));
	if (!rs)
		return NULL;
	rs->version = SB_RESULT_VERSION;
	rs->tool_version = strdup(tool);
	rs->created = strdup("");
	rs->command = strdup("import");
	rs->host = json_object_new_object();
	rs->devices = json_object_new_array();
	rs->tools = json_object_new_object();
	rs->path = strdup(name);
	if (!rs->tool_version || !rs->created || !rs->command || !rs->path) {
		sb_resultset_free(rs);
		return NULL;
	}
	return rs;
}

/* The variant names of a set being imported, hashed, each with the next
 * "#k" to try after it: 4000 lines of one machine name cost linear time
 * (a scan of every name for every candidate was cubic: 137 s for 4000). */
struct names {
	const char **name; /* borrowed from the set's variants */
	unsigned *next;
	size_t cap, n;
};

static size_t names_slot(const struct names *t, const char *name)
{
	size_t h = 1469598103934665603ull;
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	for (h &= t->cap - 1; t->name[h] && strcmp(t->name[h], name) != 0;
	     h = (h + 1) & (t->cap - 1))
		;
	return h;
}

static int names_add(struct names *t, const char *name)
{
	if (2 * (t->n + 1) > t->cap) {
		struct names g = {.cap = t->cap ? 2 * t->cap : 64};
		g.name = calloc(g.cap, sizeof(*g.name));
		g.next = calloc(g.cap, sizeof(*g.next));
		if (!g.name || !g.next) {
			free(g.name);
			free(g.next);
			return -ENOMEM;
		}
		for (size_t i = 0; i < t->cap; i++)
			if (t->name[i]) {
				size_t k = names_slot(&g, t->name[i]);
				g.name[k] = t->name[i];
				g.next[k] = t->next[i];
			}
		free(t->name);
		free(t->next);
		g.n = t->n;
		*t = g;
	}
	size_t k = names_slot(t, name);
	t->name[k] = name;
	t->next[k] = 2;
	t->n++;
	return 0;
}

static bool names_has(const struct names *t, const char *name)
{
	return t->cap && t->name[names_slot(t, name)];
}

static void names_free(struct names *t)
{
	free(t->name);
	free(t->next);
}

/* A variant of one repeat; the name made unique with #2, #3... */
static int add_variant(struct sb_resultset *rs, struct names *names, const char *base,
		       const char *source, struct sb_wl_result **wl, size_t n)
{
	_cleanup_free_ char *name = NULL;
	json_object *params;

	base = base && *base ? base : "imported";
	if (!names_has(names, base)) {
		name = strdup(base);
	} else {
		unsigned *next = &names->next[names_slot(names, base)];
		for (;; (*next)++) {
			free(name);
			name = sb_asprintf("%s#%u", base, *next);
			if (!name || !names_has(names, name))
				break;
		}
		(*next)++;
	}
	params = json_object_new_object();
	if (!name || !params) {
		json_object_put(params);
		return -ENOMEM;
	}
	json_object_object_add(params, "source", json_object_new_string(source));
	struct sb_variant *v = sb_resultset_append_variant(rs, name, params);
	if (!v || names_add(names, v->name) < 0)
		return -ENOMEM;
	return sb_variant_add_repeat(v, 0, wl, n);
}

/* ---- bonnie++ CSV ---- */

#define B98_FIELDS SB_BF_COUNT

static size_t split(char *line, char **f, size_t max)
{
	size_t n = 0;
	for (char *p = line; n < max;) {
		f[n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p++ = '\0';
	}
	return strchr(f[n - 1], ',') ? max + 1 : n;
}

/* "+++++" or "+++": bonnie++'s "too fast to measure". */
static bool too_fast(const char *s)
{
	return *s == '+' && s[strspn(s, "+")] == '\0';
}

/* Every figure a plain decimal, empty or +++++ (never nan, inf, 1e999 or a
 * sign, which strtod takes); every latency a decimal with us, ms or s: the
 * rates and %CPU of every test first, then the latencies. */
static int check_figures(const char **f98, const char *name, size_t lineno, char **err)
{
	static const char *const suffix[] = {"", "_cpu", " latency"};

	for (size_t k = 0; k < 3 * SB_BONNIE_TESTS; k++) {
		bool lat = k >= 2 * SB_BONNIE_TESTS;
		const struct sb_bonnie_test *t =
		    &sb_bonnie_tests[lat ? k - 2 * SB_BONNIE_TESTS : k / 2];
		const char *v = f98[lat ? t->lat_field : t->field + k % 2];
		double x;
		int r = lat ? sb_bonnie_latency(v, &x) : sb_bonnie_figure(v, &x);
		if (r >= 0)
			continue;
		_cleanup_free_ char *e = sb_escape(v);
		_cleanup_free_ char *n = sb_escape(name);
		return sb_set_err(
		    err, -EINVAL,
		    !lat ? "%s: line %zu: '%s' where a figure belongs (%s%s): expected a "
			   "number (at most 1e15), empty or +++++"
			 : "%s: line %zu: '%s' where a latency belongs (%s%s): expected a "
			   "number with us, ms or s, or empty",
		    n ? n : "?", lineno, e ? e : "?", t->metric, suffix[lat ? 2 : k % 2]);
	}
	return 0;
}

/* Normalizes one line to the 1.98 fields; returns the form's name or NULL. */
static const char *to_b98(char **in, size_t n, const char **f98)
{
	static const char *const empty = "";
	for (size_t i = 0; i < B98_FIELDS; i++)
		f98[i] = empty;
	f98[SB_BF_FORMAT] = "1.98";
	if (n == B98_FIELDS && strncmp(in[0], "1.9", 3) == 0) {
		for (size_t i = 0; i < B98_FIELDS; i++)
			f98[i] = in[i];
		f98[SB_BF_FORMAT] = "1.98";
		return "1.98";
	}
	if (n == 48 && strncmp(in[0], "1.9", 3) == 0) {
		/* 1.93-1.97: no seek count and seeker processes after the chunk size */
		for (size_t i = 0; i < 7; i++)
			f98[i] = in[i];
		for (size_t i = 7; i < 48; i++)
			f98[i + 2] = in[i];
		f98[SB_BF_FORMAT] = "1.98";
		return "1.9x";
	}
	/* a trailing comma (16 and 28 fields) is the same line */
	if ((n == 28 || n == 16) && !*in[n - 1])
		n--;
	if (n == 27 || n == 15 || n == 14) {
		/* 1.03: name,size,12 rate/%CPU fields,files,12 create fields
		 * (15 or 14 when the file tests did not run) */
		f98[SB_BF_VERSION] = "1.03";
		f98[SB_BF_NAME] = in[0];
		f98[SB_BF_FILE_SIZE] = in[1];
		for (size_t i = 0; i < 12; i++)
			f98[SB_BF_PUTC + i] = in[2 + i];
		f98[SB_BF_NUM_FILES] = n > 14 ? in[14] : empty;
		for (size_t i = 0; n == 27 && i < 12; i++)
			f98[SB_BF_NUM_FILES + 5 + i] = in[15 + i];
		return "1.03";
	}
	return NULL;
}

static char *join(const char **f, size_t n)
{
	char *s = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&s, &len);
	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++)
		fprintf(o, "%s%s", i ? "," : "", f[i]);
	if (fclose(o) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* The seq half (rates up to seeks) and the meta half (creates) of a line. */
static int bonnie_results(const char *line98, struct sb_wl_result **seq, struct sb_wl_result **meta)
{
	struct sb_wl_result *all = sb_wl_result_new("bonnie++", "bonnie++");
	int r;
	*seq = sb_wl_result_new("seq", "seq");
	*meta = sb_wl_result_new("meta", "meta");
	if (!all || !*seq || !*meta) {
		r = -ENOMEM;
		goto out;
	}
	r = sb_bonnie_csv_import(line98, all);
	for (size_t i = 0; r == 0 && i < all->n_metrics; i++) {
		const struct sb_metric *m = &all->metrics[i];
		const struct sb_bonnie_test *t = sb_bonnie_test_of(m->name);
		bool is_seq = t && strcmp(t->workload, "seq") == 0;
		r = sb_wl_add_metric(is_seq ? *seq : *meta, m->name, m->unit, m->better, m->value);
	}
	for (size_t i = 0; r == 0 && i < all->n_lat; i++) {
		const struct sb_bonnie_test *t = sb_bonnie_test_of(all->lat[i].op);
		bool is_seq = t && strcmp(t->workload, "seq") == 0;
		r = sb_wl_add_latency(is_seq ? *seq : *meta, &all->lat[i]);
	}
out:
	sb_wl_result_free(all);
	if (r < 0) {
		sb_wl_result_free(*seq);
		sb_wl_result_free(*meta);
		*seq = *meta = NULL;
	}
	return r;
}

/* Which figures bonnie++ printed as +++++, for the notes. */
static char *too_fast_note(const char **f98)
{
	char *s = NULL;
	size_t len = 0, n = 0;
	FILE *o = open_memstream(&s, &len);
	if (!o)
		return NULL;
	fputs("bonnie++ printed +++++ (too fast to measure, not a number) for", o);
	for (size_t i = 0; i < SB_BONNIE_TESTS; i++)
		if (too_fast(f98[sb_bonnie_tests[i].field]))
			fprintf(o, "%s %s", n++ ? "," : "", sb_bonnie_tests[i].metric);
	if (fclose(o) != 0 || !n) {
		free(s);
		return NULL;
	}
	return s;
}

int sb_import_bonnie_csv(const char *text, size_t size, const char *name, struct sb_resultset **out,
			 char **err)
{
	struct sb_resultset *rs = import_set(name, "bonnie++");
	const char *p = text, *end = text + size;
	struct names names = {0};
	size_t lineno = 0;
	int r = 0;

	*out = NULL;
	if (!rs)
		return -ENOMEM;
	while (p < end && r == 0) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		_cleanup_free_ char *line = strndup(p, len);
		char *f[B98_FIELDS + 2];
		const char *f98[B98_FIELDS];
		const char *form;
		size_t n;

		lineno++;
		p += len + 1;
		if (!line) {
			r = -ENOMEM;
			break;
		}
		line[strcspn(line, "\r")] = '\0';
		if (memchr(line, '\0', len) != line + strlen(line) && strlen(line) < len) {
			r = sb_set_err(err, -EINVAL, "%s: line %zu: not text", name, lineno);
			break;
		}
		if (!line[strspn(line, " \t")] || line[0] == '#')
			continue;
		n = split(line, f, B98_FIELDS + 1);
		form = n <= B98_FIELDS ? to_b98(f, n, f98) : NULL;
		if (!form) {
			r = sb_set_err(
			    err, -EINVAL,
			    "%s: line %zu: not a bonnie++ CSV line (expected 27 fields of the "
			    "1.03 form (14 to 16 without file tests), 48 of 1.9x or 50 of 1.98 "
			    "starting \"1.9\"; got %zu)",
			    name, lineno, n);
			break;
		}
		r = check_figures(f98, name, lineno, err);
		if (r < 0)
			break;
		_cleanup_free_ char *l98 = join(f98, B98_FIELDS);
		struct sb_wl_result *wl[2];
		if (!l98 || (r = bonnie_results(l98, &wl[0], &wl[1])) < 0) {
			r = r < 0 ? r : -ENOMEM;
			break;
		}
		char *note = too_fast_note(f98);
		if (note)
			wl[wl[1]->n_metrics || !wl[0]->n_metrics ? 1 : 0]->error = note;
		_cleanup_free_ char *src =
		    sb_asprintf("%s line %zu (bonnie++ %s CSV)", name, lineno, form);
		if (!src || (r = add_variant(rs, &names, f98[SB_BF_NAME], src, wl, 2)) < 0) {
			sb_wl_result_free(wl[0]);
			sb_wl_result_free(wl[1]);
			r = r < 0 ? r : -ENOMEM;
		}
	}
	names_free(&names);
	if (r == 0 && rs->n_var == 0)
		r = sb_set_err(err, -EINVAL, "%s: no bonnie++ CSV lines", name);
	if (r < 0) {
		sb_resultset_free(rs);
		return r;
	}
	*out = rs;
	return 0;
}

/* ---- fio JSON ---- */

int sb_import_fio_json(const char *text, size_t size, const char *name, struct sb_resultset **out,
		       char **err)
{
	_cleanup_free_ char *buf = strndup(text, size);
	struct sb_resultset *rs = NULL;
	struct sb_wl_result *res = NULL;
	json_object *v;
	int r;

	*out = NULL;
	if (!buf)
		return -ENOMEM;
	if (strlen(buf) != size)
		return sb_set_err(err, -EINVAL, "%s: not a text file (expected fio's JSON output)",
				  name);
	res = sb_wl_result_new("fio", "fio");
	if (!res)
		return -ENOMEM;
	_cleanup_free_ char *why = NULL;
	r = sb_fio_json_parse(res, buf, &why);
	if (r < 0 || !res->n_metrics) {
		sb_wl_result_free(res);
		if (r == -ENOMEM)
			return r;
		if (why)
			return sb_set_err(err, -EINVAL, "%s: not fio JSON output with results: %s",
					  name, why);
		return sb_set_err(err, -EINVAL,
				  "%s: not fio JSON output with results (expected an object with a "
				  "\"jobs\" array, as fio --output-format=json writes)",
				  name);
	}
	/* a string: sb_fio_json_parse checked "fio version" */
	const char *tool = res->extra && json_object_object_get_ex(res->extra, "fio_version", &v) &&
				   json_object_is_type(v, json_type_string)
			       ? json_object_get_string(v)
			       : "fio";
	rs = import_set(name, tool);
	if (!rs) {
		sb_wl_result_free(res);
		return -ENOMEM;
	}
	_cleanup_free_ char *base = sb_report_set_name(name);
	_cleanup_free_ char *src = sb_asprintf("%s (fio JSON)", name);
	struct names names = {0};
	r = base && src ? add_variant(rs, &names, base, src, &res, 1) : -ENOMEM;
	names_free(&names);
	if (r < 0) {
		sb_wl_result_free(res);
		sb_resultset_free(rs);
		return r < 0 ? r : -ENOMEM;
	}
	*out = rs;
	return 0;
}

/* ---- which kind of file ---- */

/* At most IMPORT_MAX_BYTES + 1 bytes of a regular file: a FIFO or a device
 * (/dev/zero) is refused at once, never read or waited on. */
static int read_file(const char *path, char **buf, size_t *len, char **err)
{
	mode_t mode = 0;
	int r = sb_read_regular(path, IMPORT_MAX_BYTES, buf, len, &mode);
	_cleanup_free_ char *e = r < 0 ? sb_escape(path) : NULL;

	if (r == -EINVAL)
		return sb_set_err(err, -EINVAL, "%s: %s, not a result file (refused)", e ? e : "?",
				  sb_file_kind(mode));
	if (r == -EFBIG)
		return sb_set_err(err, -EINVAL, "%s: too large to be a result (over %u MiB)",
				  e ? e : "?", IMPORT_MAX_BYTES >> 20);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return sb_set_err(err, -EINVAL, "%s: %s", e ? e : "?", strerror(-r)), r;
	return 0;
}

int sb_report_read_set(const char *path, struct sb_resultset **out, char **err)
{
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t len = 0;
	int r;

	if (stat(path, &st) < 0 || S_ISDIR(st.st_mode))
		return sb_resultset_read(path, out, err);
	r = read_file(path, &buf, &len, err);
	if (r < 0)
		return r;
	const char *p = buf + strspn(buf, " \t\r\n");
	/* Read once and parsed from memory: what is judged is what was read. */
	/* fio may print notes before its JSON; ours starts with '{' */
	if (*p == '{' && strstr(buf, "\"stackbench-result\""))
		return sb_resultset_parse(buf, len, path, out, err);
	if (strstr(buf, "\"fio version\"") && strchr(buf, '{'))
		return sb_import_fio_json(buf, len, path, out, err);
	if (*p != '{' && strchr(p, ','))
		return sb_import_bonnie_csv(buf, len, path, out, err);
	return sb_resultset_parse(buf, len, path, out, err);
}
