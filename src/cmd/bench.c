/* `stackbench bench DIR`: run workloads in an existing directory, print a
 * summary (bonnie-like table for seq/meta, FsOpBench-like lines for mixed),
 * and optionally write result.json. */
#include "cmd.h"
#include "history/history.h"
#include "result/result.h"
#include "report/report.h"
#include "util/log.h"
#include "util/opt.h"
#include "util/safefile.h"
#include "util/size.h"
#include "result/bonnie_csv.h"
#include "workload/cpulist.h"
#include "workload/workload.h"

#include <fcntl.h>
#include <libmount.h>
#include <libsmartcols.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
	OPT_WORKLOAD = 'w',
	OPT_QUICK = 256,
	OPT_RESULTS,
	OPT_JSON,
	OPT_RAM,
	OPT_NAME,
	OPT_BONNIE,
	OPT_FSOPBENCH,
	OPT_CAP_CACHE,
	OPT_CPUS
};

static const struct sb_opt bench_opts[] = {
    {"workload", OPT_WORKLOAD, "SPEC",
     "a workload NAME[:ARG][,key=value...] (repeatable; "
     "default seq and meta); see 'stackbench list workloads'"},
    {"quick", OPT_QUICK, NULL, "small sizes and short times (CI); flagged in the results"},
    {"results", OPT_RESULTS, "DIR", "write DIR/result.json"},
    {"json", OPT_JSON, NULL, "print the result set as JSON instead of the summary"},
    {"ram", OPT_RAM, "SIZE", "RAM size to size data sets by (default: the machine's)"},
    {"cap-cache", OPT_CAP_CACHE, NULL,
     "with --ram: each workload in a memory cgroup limited to that size (the page cache "
     "holds no more than such a machine's would)"},
    {"name", OPT_NAME, "NAME", "name of the variant in the results (default: bench)"},
    {"cpus", OPT_CPUS, "LIST",
     "pin the workloads' threads to these CPUs (taskset's list: 0-3,6 or 0-7:2); recorded"},
    {"bonnie", OPT_BONNIE, "FILE", "also write the bonnie++ CSV line of seq and meta to FILE"},
    {"fsopbench", OPT_FSOPBENCH, NULL,
     "print mixed's figures as FsOpBench does (lines A to J per phase) after the summary"},
    SB_HISTORY_REC_OPTS,
    {0},
};

struct bench_args {
	const char **specs;
	size_t n_specs;
	bool quick, json, fsopbench, cap_cache;
	const char *results, *name, *bonnie, *cpus;
	uint64_t ram;
	struct sb_history_rec hist; /* --db, --no-db, --label */
};

static int on_opt(int key, const char *arg, void *ud)
{
	struct bench_args *a = ud;
	int r;
	if (sb_history_rec_opt(&a->hist, "bench", key, arg, &r))
		return r;
	switch (key) {
	case OPT_WORKLOAD: {
		const char **n = realloc(a->specs, (a->n_specs + 1) * sizeof(*n));
		if (!n)
			return SB_EXIT_FAILED;
		a->specs = n;
		a->specs[a->n_specs++] = arg;
		return 0;
	}
	case OPT_QUICK:
		a->quick = true;
		return 0;
	case OPT_JSON:
		a->json = true;
		return 0;
	case OPT_RESULTS:
		a->results = arg;
		return 0;
	case OPT_NAME:
		a->name = arg;
		return 0;
	case OPT_BONNIE:
		a->bonnie = arg;
		return 0;
	case OPT_FSOPBENCH:
		a->fsopbench = true;
		return 0;
	case OPT_CAP_CACHE:
		a->cap_cache = true;
		return 0;
	case OPT_CPUS: {
		char *why = NULL;
		if (sb_cpulist_check(arg, &why) < 0) {
			int e = sb_usage_error("bench", "%s", why ? why : "--cpus: bad list");
			free(why);
			return e;
		}
		a->cpus = arg;
		return 0;
	}
	case OPT_RAM:
		if (sb_parse_size(arg, &a->ram, false, NULL) < 0 || a->ram == 0)
			return sb_usage_error("bench", "--ram '%s': expected a size such as 16G",
					      arg);
		return 0;
	}
	return SB_EXIT_USAGE;
}

/* The directory's file system, from libmount: {dir, fstype, options, source}. */
static json_object *target_facts(const char *dir)
{
	json_object *o = json_object_new_object();
	struct libmnt_table *tb = mnt_new_table_from_file("/proc/self/mountinfo");
	char real[PATH_MAX], *mp = NULL;
	struct libmnt_fs *fs = NULL;

	json_object_object_add(o, "dir", json_object_new_string(realpath(dir, real) ? real : dir));
	if (tb && (mp = mnt_get_mountpoint(real)))
		fs = mnt_table_find_target(tb, mp, MNT_ITER_BACKWARD);
	if (fs) {
		const char *v;
		if ((v = mnt_fs_get_fstype(fs)))
			json_object_object_add(o, "fstype", json_object_new_string(v));
		if ((v = mnt_fs_get_options(fs)))
			json_object_object_add(o, "options", json_object_new_string(v));
		if ((v = mnt_fs_get_source(fs)))
			json_object_object_add(o, "source", json_object_new_string(v));
		json_object_object_add(o, "mountpoint", json_object_new_string(mp));
	}
	free(mp);
	mnt_unref_table(tb);
	return o;
}

static const char *flag_words(unsigned f, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s", f & SB_RES_QUICK ? " quick" : "",
		 f & SB_RES_CACHE_AFFECTED ? " cache-affected" : "",
		 f & SB_RES_INCOMPLETE ? " incomplete" : "", f & SB_RES_FAILED ? " failed" : "");
	return buf;
}

static const struct sb_latency *find_lat(const struct sb_wl_result *r, const char *op)
{
	for (size_t i = 0; i < r->n_lat; i++)
		if (strcmp(r->lat[i].op, op) == 0)
			return &r->lat[i];
	return NULL;
}

static void fmt_num(char *buf, size_t len, double v)
{
	if (v >= 100 || v == 0)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

/* seq and meta: one row per test, bonnie-like (rate, %CPU, latency). */
static void print_bonnie_table(const struct sb_wl_result *r)
{
	struct libscols_table *tb = scols_new_table();
	if (!tb)
		return;
	scols_table_new_column(tb, "TEST", 0, 0);
	scols_table_new_column(tb, "RATE", 0, SCOLS_FL_RIGHT);
	scols_table_new_column(tb, "UNIT", 0, 0);
	scols_table_new_column(tb, "%CP", 0, SCOLS_FL_RIGHT);
	scols_table_new_column(tb, "LAT-MEAN-MS", 0, SCOLS_FL_RIGHT);
	scols_table_new_column(tb, "LAT-P99-MS", 0, SCOLS_FL_RIGHT);
	scols_table_new_column(tb, "LAT-MAX-MS", 0, SCOLS_FL_RIGHT);
	/* The rows and which latency record goes with which rate: the bonnie++
	 * mapping's (result/bonnie_csv.c); the labels come with the figures. */
	for (size_t i = 0; i < SB_BONNIE_TESTS; i++) {
		const struct sb_bonnie_test *t = &sb_bonnie_tests[i];
		const struct sb_metric *m = sb_wl_find_metric(r, t->metric), *cpu;
		char cname[64], b[32];
		if (!m)
			continue;
		snprintf(cname, sizeof(cname), "%s_cpu", t->metric);
		cpu = sb_wl_find_metric(r, cname);
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		scols_line_set_data(ln, 0, m->label ? m->label : m->name);
		fmt_num(b, sizeof(b), m->value);
		scols_line_set_data(ln, 1, b);
		scols_line_set_data(ln, 2, m->unit);
		if (cpu) {
			snprintf(b, sizeof(b), "%.0f", cpu->value);
			scols_line_set_data(ln, 3, b);
		}
		const struct sb_latency *l = t->lat_op ? find_lat(r, t->lat_op) : NULL;
		if (l) {
			snprintf(b, sizeof(b), "%.3f", l->mean_ms);
			scols_line_set_data(ln, 4, b);
			snprintf(b, sizeof(b), "%.3f", l->p99_ms);
			scols_line_set_data(ln, 5, b);
			snprintf(b, sizeof(b), "%.3f", l->max_ms);
			scols_line_set_data(ln, 6, b);
		}
	}
	scols_print_table(tb);
	scols_unref_table(tb);
}

/* mixed: FsOpBench's lines, "A read dir cnt 56400 min 0.001 ms max ..." */
static void print_fsopbench(const struct sb_wl_result *r)
{
	const char *phase = NULL;
	for (size_t i = 0; i < r->n_lat; i++) {
		const struct sb_latency *l = &r->lat[i];
		const char *colon = strstr(l->op, ": ");
		size_t plen = colon ? (size_t)(colon - l->op) : 0;
		if (colon && (!phase || strncmp(phase, l->op, plen) != 0 || phase[plen] != ':')) {
			printf("%.*s:\n", (int)plen, l->op);
			phase = l->op;
		}
		printf("  %s cnt %llu min %.3f ms max %.3f ms mean %.3f ms stdev %.3f p99 %.3f ms "
		       "p99.9 %.3f ms\n",
		       colon ? colon + 2 : l->op, (unsigned long long)l->count, l->min_ms,
		       l->max_ms, l->mean_ms, l->stdev_ms, l->p99_ms, l->p999_ms);
	}
	for (size_t i = 0; i < r->n_metrics; i++)
		if (strstr(r->metrics[i].name, "_rate_"))
			printf("%s %.2f %s\n",
			       r->metrics[i].label ? r->metrics[i].label : r->metrics[i].name,
			       r->metrics[i].value, r->metrics[i].unit);
}

static void print_generic(const struct sb_wl_result *r)
{
	struct libscols_table *tb = scols_new_table();
	if (!tb)
		return;
	scols_table_new_column(tb, "METRIC", 0, 0);
	scols_table_new_column(tb, "VALUE", 0, SCOLS_FL_RIGHT);
	scols_table_new_column(tb, "UNIT", 0, 0);
	for (size_t i = 0; i < r->n_metrics; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		char b[32];
		scols_line_set_data(ln, 0,
				    r->metrics[i].label ? r->metrics[i].label : r->metrics[i].name);
		fmt_num(b, sizeof(b), r->metrics[i].value);
		scols_line_set_data(ln, 1, b);
		scols_line_set_data(ln, 2, r->metrics[i].unit);
	}
	scols_print_table(tb);
	scols_unref_table(tb);
	if (!r->n_lat)
		return;
	tb = scols_new_table();
	if (!tb)
		return;
	const char *cols[] = {"OP",  "COUNT", "MIN-MS", "MEAN-MS", "STDEV",
			      "P50", "P90",   "P99",	"P99.9",   "MAX-MS"};
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		scols_table_new_column(tb, cols[c], 0, c ? SCOLS_FL_RIGHT : 0);
	for (size_t i = 0; i < r->n_lat; i++) {
		const struct sb_latency *l = &r->lat[i];
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		double v[] = {l->min_ms, l->mean_ms, l->stdev_ms, l->p50_ms,
			      l->p90_ms, l->p99_ms,  l->p999_ms,  l->max_ms};
		char b[32];
		scols_line_set_data(ln, 0, l->op);
		snprintf(b, sizeof(b), "%llu", (unsigned long long)l->count);
		scols_line_set_data(ln, 1, b);
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
			snprintf(b, sizeof(b), "%.3f", v[k]);
			scols_line_set_data(ln, 2 + k, b);
		}
	}
	scols_print_table(tb);
	scols_unref_table(tb);
}

static void print_summary(const struct sb_wl_result *r)
{
	char f[96];
	printf("== %s%s%s%s\n", r->spec, r->flags ? " [" : "",
	       r->flags ? flag_words(r->flags, f, sizeof(f)) + 1 : "", r->flags ? "]" : "");
	if (r->error)
		printf("note: %s\n", r->error);
	if (strcmp(r->workload, "seq") == 0 || strcmp(r->workload, "meta") == 0 ||
	    strcmp(r->workload, "bonnie++") == 0)
		print_bonnie_table(r);
	else if (strcmp(r->workload, "mixed") == 0)
		print_fsopbench(r);
	else
		print_generic(r);
	printf("\n");
}

/* What sb_create_new will say at the end, said before the workloads run:
 * the file must be new, its directory reached through no symlink. */
static int bonnie_check(const char *path)
{
	_cleanup_free_ char *dir = strdup(path);
	char *slash = dir ? strrchr(dir, '/') : NULL;
	struct stat st;
	int fd;

	if (!dir)
		return -ENOMEM;
	if (lstat(path, &st) == 0)
		return -EEXIST;
	if (slash)
		slash[slash == dir ? 1 : 0] = '\0';
	fd = sb_dir_open_nofollow(slash ? dir : ".", false, 0);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static int write_bonnie(const char *path, struct sb_wl_result **wl, size_t n, const char *name)
{
	const struct sb_wl_result *seq = NULL, *meta = NULL;
	_cleanup_free_ char *line = NULL;
	FILE *f;

	for (size_t i = 0; i < n; i++) {
		if (strcmp(wl[i]->workload, "seq") == 0 && !seq)
			seq = wl[i];
		if (strcmp(wl[i]->workload, "meta") == 0 && !meta)
			meta = wl[i];
	}
	if (!seq && !meta)
		return sb_error("%s: no seq or meta results to write as bonnie++ CSV", path),
		       -EINVAL;
	line = sb_bonnie_csv_line(seq, meta, name);
	if (!line)
		return -ENOMEM;
	/* Written as root: a file or a link already there is refused, never
	 * truncated or followed, and so is a symlink on the way to it. */
	int fd = sb_create_new(path, 0644);
	if (fd == -EEXIST)
		return sb_error("%s: refusing: it exists (a file or a link; give a new name)",
				path),
		       fd;
	if (fd == -ELOOP)
		return sb_error("%s: refusing: %s", path, sb_trust_text(fd)), fd;
	if (fd < 0)
		return sb_error_errno(fd, "%s", path);
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return sb_error_errno(-errno, "%s", path);
	}
	fprintf(f, "%s\n", line);
	if (fclose(f) != 0)
		return sb_error_errno(-errno, "%s", path);
	return 0;
}

/* Everything about the arguments that can be wrong, found before any
 * workload runs: the directory, every spec, the cap, the --bonnie file, the
 * results directory. 0, or the exit code after reporting. */
static int check_args(struct bench_args *a, const char *dir)
{
	static const char *const defaults[] = {"seq", "meta"};
	struct stat st;
	char *err = NULL;
	int r;

	if (a->cap_cache && !a->ram)
		return sb_usage_error("bench", "--cap-cache needs --ram SIZE (the size to cap at)");
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		sb_error("%s: not an existing directory", dir);
		return SB_EXIT_USAGE;
	}
	if (!a->n_specs) {
		a->specs = malloc(sizeof(defaults));
		if (!a->specs)
			return SB_EXIT_FAILED;
		memcpy(a->specs, defaults, sizeof(defaults));
		a->n_specs = 2;
	}
	for (size_t i = 0; i < a->n_specs; i++) {
		if (sb_workload_check(a->specs[i], &err) < 0) {
			sb_error("%s", err ? err : a->specs[i]);
			free(err);
			return SB_EXIT_USAGE;
		}
	}
	if (a->cap_cache &&
	    sb_workload_check_cap(a->specs, a->n_specs, a->quick, a->ram, &err) < 0) {
		sb_error("%s", err ? err : "--cap-cache: the cap is too small");
		free(err);
		return SB_EXIT_USAGE;
	}
	/* The --bonnie file is made new at the end (sb_create_new): one that is
	 * there already is refused now, not after the workloads ran. */
	if (a->bonnie && (r = bonnie_check(a->bonnie)) < 0) {
		if (r == -EEXIST)
			sb_error("%s: refusing: it exists (a file or a link; give a new name)",
				 a->bonnie);
		else
			sb_error("%s: refusing: its directory %s", a->bonnie,
				 r == -ELOOP ? sb_trust_text(r) : strerror(-r));
		return SB_EXIT_USAGE;
	}
	if (a->results && mkdir(a->results, 0755) < 0 && errno != EEXIST) {
		sb_error_errno(-errno, "%s", a->results);
		return SB_EXIT_USAGE;
	}
	return 0;
}

/* The workloads in dir, in order, until a signal (main.c catches SIGINT
 * and SIGTERM for bench: sb_cmd_stop); their results appended to wl. The
 * exit code. */
static int run_specs(const struct bench_args *a, const char *dir, struct sb_wl_result **wl,
		     size_t *n_wl)
{
	struct sb_wl_env env = {.dir = dir,
				.quick = a->quick,
				.ram_bytes = a->ram,
				.cap_cache = a->cap_cache,
				.log_fd = -1,
				.stop = &sb_cmd_stop,
				.cpus = a->cpus};
	int code = SB_EXIT_OK;

	for (size_t i = 0; i < a->n_specs && !sb_cmd_stop; i++) {
		char *err = NULL;
		sb_info("running %s in %s", a->specs[i], dir);
		int r = sb_workload_run(a->specs[i], &env, &wl[*n_wl], &err);
		if (wl[*n_wl])
			(*n_wl)++;
		if (r == -EINTR || sb_cmd_stop) {
			code = SB_EXIT_INTERRUPTED;
		} else if (r < 0) {
			sb_error("%s", err ? err : a->specs[i]);
			/* -EXDEV: a path outside the directory, refused */
			if (code != SB_EXIT_REFUSED)
				code = r == -EXDEV ? SB_EXIT_REFUSED : SB_EXIT_FAILED;
		}
		free(err);
	}
	return sb_cmd_stop ? SB_EXIT_INTERRUPTED : code;
}

/* The summary on stdout (unless --json), FsOpBench's lines, the --bonnie
 * file: false when that file could not be written. */
static bool print_all(const struct bench_args *a, struct sb_wl_result **wl, size_t n_wl)
{
	if (!a->json)
		for (size_t i = 0; i < n_wl; i++)
			print_summary(wl[i]);
	for (size_t i = 0; a->fsopbench && !a->json && i < n_wl; i++)
		if (wl[i] && strcmp(wl[i]->workload, "mixed") == 0)
			sb_fsopbench_print(stdout, a->name ? a->name : "bench", wl[i]);
	return !a->bonnie ||
	       write_bonnie(a->bonnie, wl, n_wl, a->name ? a->name : "stackbench") == 0;
}

/* Versions of the external programs whose figures are in the set. */
static void add_tool_versions(struct sb_resultset *rs, struct sb_wl_result **wl, size_t n_wl)
{
	for (size_t i = 0; i < n_wl; i++) {
		json_object *v;
		if (wl[i]->extra && json_object_object_get_ex(wl[i]->extra, "fio_version", &v))
			json_object_object_add(rs->tools, "fio", json_object_get(v));
		if (wl[i]->extra && json_object_object_get_ex(wl[i]->extra, "bonnie_csv", &v)) {
			const char *csv = json_object_get_string(v), *c1 = strchr(csv, ',');
			const char *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
			if (c2)
				json_object_object_add(
				    rs->tools, "bonnie++",
				    json_object_new_string_len(c1 + 1, (int)(c2 - c1 - 1)));
		}
	}
}

/* The result set of one variant of one repeat; it takes the results over
 * (*n_wl set to 0). NULL when out of memory. */
static struct sb_resultset *bench_set(const struct bench_args *a, const char *dir,
				      struct sb_wl_result **wl, size_t *n_wl)
{
	struct sb_resultset *rs = sb_resultset_new("bench");
	json_object *params = json_object_new_object();
	struct sb_variant *v;

	if (!rs) {
		json_object_put(params);
		return NULL;
	}
	rs->target = target_facts(dir);
	add_tool_versions(rs, wl, *n_wl);
	json_object_object_add(params, "dir", json_object_new_string(dir));
	v = sb_resultset_variant(rs, a->name ? a->name : "bench", params);
	if (!v || sb_variant_add_repeat(v, 0, wl, *n_wl) < 0) {
		sb_resultset_free(rs);
		return NULL;
	}
	*n_wl = 0;
	return rs;
}

/* --json on stdout, --results DIR/result.json, the history: the exit code
 * given, or 1 when one of them failed. */
static int save_set(struct bench_args *a, struct sb_resultset *rs, int code)
{
	if (a->json) {
		json_object *o = sb_resultset_to_json(rs);
		printf("%s\n", json_object_to_json_string_ext(
				   o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	}
	if (a->results) {
		int r = sb_resultset_write(rs, a->results);
		if (r == -ELOOP || r == -EPERM || r == -EACCES) {
			sb_error("%s: refusing to write result.json: %s", a->results,
				 sb_trust_text(r));
			code = SB_EXIT_FAILED;
		} else if (r < 0) {
			sb_error_errno(r, "%s: cannot write result.json", a->results);
			code = SB_EXIT_FAILED;
		}
	}
	if (code == SB_EXIT_OK && sb_history_record_set(&a->hist, rs))
		code = SB_EXIT_FAILED;
	return code;
}

/* The signals are main.c's (CMD_STOPPABLE). */
int cmd_bench(int argc, char **argv)
{
	struct bench_args a = {0};
	struct sb_cmdline cl = {"bench",
				"DIR [--workload SPEC]... [--quick] [--results DIR] [--json]",
				"Run workloads in an existing directory (no building) and print a "
				"summary.",
				bench_opts,
				on_opt,
				&a};
	struct sb_wl_result **wl = NULL;
	struct sb_resultset *rs = NULL;
	size_t n_wl = 0;
	char **rest;
	int n, r, code;

	r = sb_opt_parse(&cl, argc, argv, &rest, &n);
	if (r == 0 && n != 1)
		r = sb_usage_error("bench", "expected one directory");
	if (r == 0)
		r = check_args(&a, rest[0]);
	if (r == 0 && !(wl = calloc(a.n_specs, sizeof(*wl))))
		r = SB_EXIT_FAILED;
	if (r) {
		free(a.specs);
		return r < 0 ? 0 : r;
	}
	code = run_specs(&a, rest[0], wl, &n_wl);
	if (!print_all(&a, wl, n_wl) && code == SB_EXIT_OK)
		code = SB_EXIT_FAILED;
	rs = bench_set(&a, rest[0], wl, &n_wl);
	code = rs ? save_set(&a, rs, code) : SB_EXIT_FAILED;
	for (size_t i = 0; i < n_wl; i++)
		sb_wl_result_free(wl[i]);
	free(wl);
	sb_resultset_free(rs);
	free(a.specs);
	return code;
}
