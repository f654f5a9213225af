/* Other tools' results as result sets, so that published or earlier figures
 * stand beside a new run in `report`: bonnie++ CSV lines (the 1.03 form of
 * 27 fields, the 1.9x form of 48 and the 1.98 form of 50; "+++++" is "too
 * fast to measure", not a number) and fio's JSON output. Each becomes a set
 * of command "import" with one repeat per variant: n = 1, no statistics,
 * and the report says so. Pure functions of the text, fuzzed
 * (fuzz/fuzz_import_*.c). */
#include "report/report.h"
#include "util/macro.h"
#include "util/strutil.h"
#include "workload/bonnie_csv.h"
#include "workload/wl.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define IMPORT_MAX_BYTES (64u << 20)

static int fail(char **err, const char *fmt, ...) _printf_(2, 3);
static int fail(char **err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(*err);
	*err = sb_vasprintf(fmt, ap);
	va_end(ap);
	return -EINVAL;
}

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

/* A variant of one repeat; the name made unique with #2, #3... */
static int add_variant(struct sb_resultset *rs, const char *base, const char *source,
		       struct sb_wl_result **wl, size_t n)
{
	_cleanup_free_ char *name = strdup(base && *base ? base : "imported");
	json_object *params = json_object_new_object();
	for (unsigned k = 2; name; k++) {
		bool taken = false;
		for (size_t i = 0; i < rs->n_var; i++)
			taken |= strcmp(rs->var[i].name, name) == 0;
		if (!taken)
			break;
		free(name);
		name = sb_asprintf("%s#%u", base, k);
	}
	if (!name || !params) {
		json_object_put(params);
		return -ENOMEM;
	}
	json_object_object_add(params, "source", json_object_new_string(source));
	struct sb_variant *v = sb_resultset_variant(rs, name, params);
	if (!v)
		return -ENOMEM;
	return sb_variant_add_repeat(v, 0, wl, n);
}

/* ---- bonnie++ CSV ---- */

#define B98_FIELDS 50
/* 1.98 field indexes the other forms map onto (bonnie_csv.c's order). */
enum { B_FORMAT = 0, B_VERSION, B_NAME, B_CONC, B_SEED, B_SIZE, B_CHUNK, B_SEEKS, B_PROCS, B_PUTC };
#define B98_NUM_FILES 21 /* after the 12 rate/%CPU fields from B_PUTC */

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

static bool numeric_or_empty(const char *s)
{
	char *end;
	if (!*s || too_fast(s))
		return true;
	strtod(s, &end);
	return *end == '\0';
}

/* Normalizes one line to the 1.98 fields; returns the form's name or NULL. */
static const char *to_b98(char **in, size_t n, const char **f98)
{
	static const char *const empty = "";
	for (size_t i = 0; i < B98_FIELDS; i++)
		f98[i] = empty;
	f98[B_FORMAT] = "1.98";
	if (n == B98_FIELDS && strncmp(in[0], "1.9", 3) == 0) {
		for (size_t i = 0; i < B98_FIELDS; i++)
			f98[i] = in[i];
		f98[B_FORMAT] = "1.98";
		return "1.98";
	}
	if (n == 48 && strncmp(in[0], "1.9", 3) == 0) {
		/* 1.93-1.97: no seek count and seeker processes after the chunk size */
		for (size_t i = 0; i < 7; i++)
			f98[i] = in[i];
		for (size_t i = 7; i < 48; i++)
			f98[i + 2] = in[i];
		f98[B_FORMAT] = "1.98";
		return "1.9x";
	}
	/* a trailing comma (16 and 28 fields) is the same line */
	if ((n == 28 || n == 16) && !*in[n - 1])
		n--;
	if (n == 27 || n == 15 || n == 14) {
		/* 1.03: name,size,12 rate/%CPU fields,files,12 create fields
		 * (15 or 14 when the file tests did not run) */
		f98[B_VERSION] = "1.03";
		f98[B_NAME] = in[0];
		f98[B_SIZE] = in[1];
		for (size_t i = 0; i < 12; i++)
			f98[B_PUTC + i] = in[2 + i];
		f98[B98_NUM_FILES] = n > 14 ? in[14] : empty;
		for (size_t i = 0; n == 27 && i < 12; i++)
			f98[B98_NUM_FILES + 5 + i] = in[15 + i];
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
		bool is_seq = sb_wl_metric_find(&sb_wl_seq, m->name, NULL, 0) != NULL;
		r = sb_wl_add_metric(is_seq ? *seq : *meta, m->name, m->unit, m->better, m->value);
	}
	for (size_t i = 0; r == 0 && i < all->n_lat; i++) {
		const char *op = all->lat[i].op;
		bool is_seq = strstr(op, "create") == NULL && strstr(op, "stat") == NULL &&
			      strstr(op, "delete") == NULL;
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
	static const struct {
		int field;
		const char *what;
	} rates[] = {{B_PUTC, "putc_write"},
		     {B_PUTC + 2, "block_write"},
		     {B_PUTC + 4, "rewrite"},
		     {B_PUTC + 6, "getc_read"},
		     {B_PUTC + 8, "block_read"},
		     {B_PUTC + 10, "seeks"},
		     {B98_NUM_FILES + 5, "seq_create"},
		     {B98_NUM_FILES + 7, "seq_stat"},
		     {B98_NUM_FILES + 9, "seq_delete"},
		     {B98_NUM_FILES + 11, "rand_create"},
		     {B98_NUM_FILES + 13, "rand_stat"},
		     {B98_NUM_FILES + 15, "rand_delete"}};
	char *s = NULL;
	size_t len = 0, n = 0;
	FILE *o = open_memstream(&s, &len);
	if (!o)
		return NULL;
	fputs("bonnie++ printed +++++ (too fast to measure, not a number) for", o);
	for (size_t i = 0; i < ARRAY_SIZE(rates); i++)
		if (too_fast(f98[rates[i].field]))
			fprintf(o, "%s %s", n++ ? "," : "", rates[i].what);
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
			r = fail(err, "%s: line %zu: not text", name, lineno);
			break;
		}
		if (!line[strspn(line, " \t")] || line[0] == '#')
			continue;
		n = split(line, f, B98_FIELDS + 1);
		form = n <= B98_FIELDS ? to_b98(f, n, f98) : NULL;
		if (!form) {
			r = fail(err,
				 "%s: line %zu: not a bonnie++ CSV line (expected 27 fields of the "
				 "1.03 form (14 to 16 without file tests), 48 of 1.9x or 50 of 1.98 "
				 "starting \"1.9\"; got %zu)",
				 name, lineno, n);
			break;
		}
		/* the 12 rate and %CPU fields, then the 12 of the file tests */
		for (size_t k = 0; k < 24 && r == 0; k++) {
			size_t i = k < 12 ? B_PUTC + k : B98_NUM_FILES + 5 + (k - 12);
			if (!numeric_or_empty(f98[i]))
				r = fail(err,
					 "%s: line %zu: '%s' where a figure belongs: expected a "
					 "number, empty or +++++",
					 name, lineno, f98[i]);
		}
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
		if (!src || (r = add_variant(rs, f98[B_NAME], src, wl, 2)) < 0) {
			sb_wl_result_free(wl[0]);
			sb_wl_result_free(wl[1]);
			r = r < 0 ? r : -ENOMEM;
		}
	}
	if (r == 0 && rs->n_var == 0)
		r = fail(err, "%s: no bonnie++ CSV lines", name);
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
		return fail(err, "%s: not a text file (expected fio's JSON output)", name);
	res = sb_wl_result_new("fio", "fio");
	if (!res)
		return -ENOMEM;
	struct sb_wl_ctx c = {.res = res};
	r = sb_fio_import(&c, buf);
	if (r < 0 || !res->n_metrics) {
		sb_wl_result_free(res);
		return fail(err,
			    "%s: not fio JSON output with results (expected an object with a "
			    "\"jobs\" array, as fio --output-format=json writes)",
			    name);
	}
	const char *tool = res->extra && json_object_object_get_ex(res->extra, "fio_version", &v)
			       ? json_object_get_string(v)
			       : "fio";
	rs = import_set(name, tool);
	if (!rs) {
		sb_wl_result_free(res);
		return -ENOMEM;
	}
	_cleanup_free_ char *base = sb_report_set_name(name);
	_cleanup_free_ char *src = sb_asprintf("%s (fio JSON)", name);
	if (!base || !src || (r = add_variant(rs, base, src, &res, 1)) < 0) {
		sb_wl_result_free(res);
		sb_resultset_free(rs);
		return r < 0 ? r : -ENOMEM;
	}
	*out = rs;
	return 0;
}

/* ---- which kind of file ---- */

static int read_file(const char *path, char **buf, size_t *len, char **err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	size_t n = 0;

	if (fd < 0)
		return fail(err, "%s: %s", path, strerror(errno)), negerrno();
	if (fstat(fd, &st) < 0 || (size_t)st.st_size > IMPORT_MAX_BYTES) {
		close(fd);
		return fail(err, "%s: too large to be a result (over 64 MiB)", path);
	}
	*buf = malloc((size_t)st.st_size + 1);
	if (!*buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t k = read(fd, *buf + n, (size_t)st.st_size - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	(*buf)[n] = '\0';
	*len = n;
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
	if (!buf)
		return -ENOMEM;
	const char *p = buf + strspn(buf, " \t\r\n");
	/* fio may print notes before its JSON; ours starts with '{' */
	if (*p == '{' && strstr(buf, "\"stackbench-result\""))
		return sb_resultset_read(path, out, err);
	if (strstr(buf, "\"fio version\"") && strchr(buf, '{'))
		return sb_import_fio_json(buf, len, path, out, err);
	if (*p == '{')
		return sb_resultset_read(path, out, err);
	if (strchr(p, ','))
		return sb_import_bonnie_csv(buf, len, path, out, err);
	return sb_resultset_read(path, out, err);
}
