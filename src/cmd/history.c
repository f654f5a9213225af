/* `stackbench history`: list the recorded runs of each metric with their
 * change points; import result directories (a fleet's results/HOST/ under
 * each host's name); export a run back out as result.json. */
#include "cmd.h"
#include "history/history.h"
#include "history/series.h"
#include "result/result.h"
#include "util/log.h"
#include "util/macro.h"
#include "util/opt.h"
#include "util/safefile.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { OPT_DB = 256, OPT_PROFILE, OPT_VARIANT, OPT_METRIC, OPT_FORMAT, OPT_LABEL, OPT_HOST };

static const struct sb_opt history_opts[] = {
    {"db", OPT_DB, "FILE", "the history database (default " SB_HISTORY_DB_DEFAULT ")"},
    {"profile", OPT_PROFILE, "P", "list: only runs of this profile (bench: 'bench')"},
    {"variant", OPT_VARIANT, "V", "list: only this variant"},
    {"metric", OPT_METRIC, "M",
     "list: only this metric (NAME or WORKLOAD:NAME; default: the headline ones)"},
    {"format", OPT_FORMAT, "text|json|html",
     "list: output format (default text; html: a trend chart per metric)"},
    {"label", OPT_LABEL, "KEY=VALUE", "import: a label for every run imported (repeatable)"},
    {"host", OPT_HOST, "NAME", "import: the host identity of the runs (default: their hostname)"},
    {0},
};

struct hargs {
	const char *db, *format, *host;
	struct sb_history_filter f;
	const char **labels;
	size_t n_labels;
};

static int on_opt(int key, const char *arg, void *ud)
{
	struct hargs *a = ud;
	switch (key) {
	case OPT_DB:
		a->db = arg;
		return 0;
	case OPT_PROFILE:
		a->f.profile = arg;
		return 0;
	case OPT_VARIANT:
		a->f.variant = arg;
		return 0;
	case OPT_METRIC:
		a->f.metric = arg;
		return 0;
	case OPT_HOST:
		a->host = arg;
		return 0;
	case OPT_FORMAT:
		if (strcmp(arg, "text") != 0 && strcmp(arg, "json") != 0 &&
		    strcmp(arg, "html") != 0)
			return sb_usage_error("history",
					      "--format '%s': expected text, json or html", arg);
		a->format = arg;
		return 0;
	case OPT_LABEL: {
		if (!strchr(arg, '=') || arg[0] == '=')
			return sb_usage_error("history", "--label '%s': expected KEY=VALUE", arg);
		const char **n = realloc(a->labels, (a->n_labels + 1) * sizeof(*n));
		if (!n)
			return SB_EXIT_FAILED;
		a->labels = n;
		a->labels[a->n_labels++] = arg;
		return 0;
	}
	}
	return SB_EXIT_USAGE;
}

static int open_db(const char *path, bool write, struct sb_history **h)
{
	char *err = NULL;
	int r = sb_history_open(path, write, h, &err);
	if (r < 0) {
		sb_error("%s", err ? err : strerror(-r));
		free(err);
		return r == -EPROTO ? SB_EXIT_REFUSED : SB_EXIT_FAILED;
	}
	return 0;
}

static const char *jget(json_object *o, const char *k)
{
	return json_object_get_string(json_object_object_get(o, k));
}

static void print_run(json_object *run, json_object *cps)
{
	char labels[256] = "";
	size_t len = 0;
	json_object *v = json_object_object_get(run, "ci95");
	json_object_object_foreach(json_object_object_get(run, "labels"), k, lv)
	{
		int w = snprintf(labels + len, sizeof(labels) - len, "%s%s=%s", len ? "," : "", k,
				 json_object_get_string(lv));
		if (w > 0 && (size_t)w < sizeof(labels) - len)
			len += (size_t)w;
	}
	char ci[32] = "-";
	if (v)
		snprintf(ci, sizeof(ci), "%.4g", json_object_get_double(v));
	printf("  %5s  %-20s  %-24s %12.6g %10s %3s", jget(run, "id"), jget(run, "created"),
	       len ? labels : "-", json_object_get_double(json_object_object_get(run, "mean")), ci,
	       jget(run, "n"));
	for (size_t i = 0; i < json_object_array_length(cps); i++) {
		json_object *c = json_object_array_get_idx(cps, i);
		if (json_object_get_int64(json_object_object_get(c, "run_id")) ==
		    json_object_get_int64(json_object_object_get(run, "id")))
			printf("  <- change point: %+.1f%% (%.4g -> %.4g, p %.2g)",
			       json_object_get_double(json_object_object_get(c, "change_pct")),
			       json_object_get_double(json_object_object_get(c, "before")),
			       json_object_get_double(json_object_object_get(c, "after")),
			       json_object_get_double(json_object_object_get(c, "p")));
	}
	printf("\n");
}

static void print_text(json_object *o)
{
	json_object *all = json_object_object_get(o, "series");
	for (size_t i = 0; i < json_object_array_length(all); i++) {
		json_object *s = json_object_array_get_idx(all, i),
			    *runs = json_object_object_get(s, "runs"),
			    *cps = json_object_object_get(s, "change_points");
		printf(
		    "%s%s %s %s %s (%s, %s, %s is better): %zu run%s, %zu change point%s\n",
		    i ? "\n" : "", jget(s, "profile"), jget(s, "variant"), jget(s, "spec"),
		    jget(s, "metric"), jget(s, "label"), jget(s, "unit"), jget(s, "better"),
		    json_object_array_length(runs), json_object_array_length(runs) == 1 ? "" : "s",
		    json_object_array_length(cps), json_object_array_length(cps) == 1 ? "" : "s");
		printf("  %5s  %-20s  %-24s %12s %10s %3s\n", "run", "created", "labels", "mean",
		       "+-ci95", "n");
		for (size_t k = 0; k < json_object_array_length(runs); k++)
			print_run(json_object_array_get_idx(runs, k), cps);
	}
}

static int list(struct hargs *a)
{
	struct sb_history *h = NULL;
	json_object *o = NULL;
	int r = open_db(a->db, false, &h);

	if (r)
		return r;
	r = sb_history_series(h, &a->f, &o);
	if (r < 0) {
		sb_error("%s: cannot read the history", a->db);
		r = SB_EXIT_FAILED;
	} else if (a->format && strcmp(a->format, "html") == 0) {
		r = sb_history_html(o, stdout) < 0 ? SB_EXIT_FAILED : 0;
	} else if (a->format && strcmp(a->format, "json") == 0) {
		printf("%s\n", json_object_to_json_string_ext(
				   o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		print_text(o);
	}
	json_object_put(o);
	sb_history_close(h);
	return r;
}

/* One result set: checked as report would read it, then stored as is. */
static int import_one(struct sb_history *h, const char *dir, const char *host, struct hargs *a)
{
	struct sb_history_meta m = {host, a->labels, a->n_labels, dir};
	struct sb_resultset *set = NULL;
	_cleanup_free_ char *file = NULL, *text = NULL;
	char *err = NULL;
	bool dup;
	struct stat st;

	if (sb_resultset_read(dir, &set, &err) < 0) {
		sb_error("%s", err ? err : dir);
		free(err);
		return SB_EXIT_USAGE;
	}
	if (asprintf(&file, "%s", set->path) < 0)
		file = NULL;
	sb_resultset_free(set);
	FILE *f = file ? fopen(file, "re") : NULL;
	if (!f || fstat(fileno(f), &st) < 0 || !(text = calloc(1, (size_t)st.st_size + 1)) ||
	    fread(text, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		sb_error_errno(-EIO, "%s", file ? file : dir);
		if (f)
			fclose(f);
		return SB_EXIT_FAILED;
	}
	fclose(f);
	int64_t id = sb_history_record(h, text, &m, &dup, &err);
	if (id < 0) {
		sb_error("%s: %s: %s", sb_history_path(h), file, err ? err : "cannot record");
		free(err);
		return SB_EXIT_FAILED;
	}
	printf("%s: %s run %lld\n", file, dup ? "already recorded as" : "recorded as",
	       (long long)id);
	return 0;
}

/* DIR holding a result set, or a fleet's results/ with one per host. */
static int import_dir(struct sb_history *h, const char *dir, struct hargs *a)
{
	_cleanup_free_ char *file = NULL;
	struct stat st;
	int code = 0, found = 0;

	if (asprintf(&file, "%s/result.json", dir) < 0)
		return SB_EXIT_FAILED;
	if (stat(dir, &st) == 0 && (!S_ISDIR(st.st_mode) || stat(file, &st) == 0))
		return import_one(h, dir, a->host, a);
	DIR *d = opendir(dir);
	if (!d) {
		sb_error_errno(-errno, "%s", dir);
		return SB_EXIT_USAGE;
	}
	struct dirent **names = NULL;
	closedir(d);
	int n = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		_cleanup_free_ char *sub = NULL, *subfile = NULL;
		if (names[i]->d_name[0] != '.' &&
		    asprintf(&sub, "%s/%s", dir, names[i]->d_name) >= 0 &&
		    asprintf(&subfile, "%s/result.json", sub) >= 0 && stat(subfile, &st) == 0) {
			int r = import_one(h, sub, a->host ? a->host : names[i]->d_name, a);
			code = code ? code : r;
			found++;
		}
		free(names[i]);
	}
	free(names);
	if (!found) {
		sb_error("%s: no result.json in it nor in a host directory under it", dir);
		return SB_EXIT_USAGE;
	}
	return code;
}

static int export_run(struct hargs *a, const char *idstr, const char *dir)
{
	struct sb_history *h = NULL;
	_cleanup_free_ char *text = NULL;
	char *end;
	long long id = strtoll(idstr, &end, 10);
	int r;

	if (*end || id <= 0)
		return sb_usage_error("history", "export: '%s': expected a run id", idstr);
	r = open_db(a->db, false, &h);
	if (r)
		return r;
	r = sb_history_export(h, id, &text);
	sb_history_close(h);
	if (r < 0) {
		sb_error("%s: no run %lld", a->db, id);
		return SB_EXIT_USAGE;
	}
	_cleanup_close_ int dfd = sb_dir_open_trusted(dir, true, 0755);
	if (dfd < 0) {
		sb_error("%s: %s", dir, sb_trust_text(dfd));
		return SB_EXIT_FAILED;
	}
	size_t len = strlen(text);
	bool nl = len && text[len - 1] == '\n';
	_cleanup_free_ char *out = NULL;
	if (asprintf(&out, "%s%s", text, nl ? "" : "\n") < 0)
		return SB_EXIT_FAILED;
	r = sb_write_at(dfd, "result.json", out, strlen(out), 0644);
	if (r < 0) {
		sb_error_errno(r, "%s/result.json", dir);
		return SB_EXIT_FAILED;
	}
	printf("%s/result.json: run %lld\n", dir, id);
	return 0;
}

int cmd_history(int argc, char **argv)
{
	struct hargs a = {0};
	struct sb_cmdline cl = {
	    "history",
	    "[list] [--profile P] [--variant V] [--metric M] [--format text|json] | "
	    "import DIR... | export RUN-ID DIR",
	    "List the runs recorded in the history database with each headline metric's "
	    "change points,\nimport result directories into it, or export a run as result.json.",
	    history_opts,
	    on_opt,
	    &a};
	struct sb_history *h = NULL;
	char **rest;
	int n, r, code = 0;

	r = sb_opt_parse(&cl, argc, argv, &rest, &n);
	if (r) {
		free(a.labels);
		return r < 0 ? 0 : r;
	}
	if (!a.db)
		a.db = sb_history_default_path();
	if (n == 0 || strcmp(rest[0], "list") == 0) {
		code = n > 1 ? sb_usage_error("history", "list takes no arguments") : list(&a);
	} else if (strcmp(rest[0], "export") == 0) {
		code = n != 3 ? sb_usage_error("history", "export: expected RUN-ID DIR")
			      : export_run(&a, rest[1], rest[2]);
	} else if (strcmp(rest[0], "import") == 0) {
		if (n < 2)
			code = sb_usage_error("history", "import: expected DIR...");
		else if (!(code = open_db(a.db, true, &h)))
			for (int i = 1; i < n; i++) {
				r = import_dir(h, rest[i], &a);
				code = code ? code : r;
			}
		sb_history_close(h);
	} else {
		code = sb_usage_error("history",
				      "unknown subcommand '%s': expected list, import "
				      "or export",
				      rest[0]);
	}
	free(a.labels);
	return code;
}
