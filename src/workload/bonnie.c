/* bonnie++[:ARGS] and iozone[:ARGS]: the classic tools, run in the work
 * directory with their results imported (bonnie++'s CSV line into the same
 * metrics as seq and meta; iozone's table into KB/s figures). */
#include "result/bonnie_csv.h"
#include "workload/wl.h"
#include "util/freetext.h"
#include "util/macro.h"
#include "util/spawn.h"

#include <string.h>
#include <unistd.h>

/* The typed options tool_opts fills (bonnie.c). */
struct tool_opts {
	struct sb_wl_common com;
};

static inline const struct tool_opts *tool_o(const struct sb_wl_spec *s)
{
	return s->o;
}

static const struct sb_wl_opt tool_opts[] = {
    SB_WL_TIMEOUT_ROW(
	struct tool_opts, "24h", "30m",
	"time limit; the program is stopped past it and the result flagged incomplete"),
    {0},
};

/* The user's ARGS against the tool's table (util/freetext.c): what no
 * spelling may say (a device, iozone -U or -+m) is refused when the spec
 * is checked, exit 2. */
static int check_args(const struct sb_ft_tool *t, const char *args, char **why)
{
	*why = NULL;
	return args ? sb_ft_check_string(t, args, NULL, why) : 0;
}

static int bonnie_check(const struct sb_wl_spec *s, char **why)
{
	return check_args(&sb_ft_bonnie, s->arg, why);
}

static int iozone_check(const struct sb_wl_spec *s, char **why)
{
	return check_args(&sb_ft_iozone, s->arg, why);
}

/* Right before the tool starts: every file or directory its words name
 * (bonnie++ -d, iozone -f/-F/-b, positionals) resolves, symlinks and ".."
 * followed, inside the file system under test; else -EXDEV (exit 3). */
static int args_inside(struct sb_wl_ctx *c, const struct sb_ft_tool *t, char **words, size_t nw)
{
	struct sb_ft_paths paths = {0};
	const char *base[] = {c->work};
	char *why = NULL;
	int r = sb_ft_check_words(t, (const char *const *)words, nw, &paths, &why);

	if (r == 0)
		r = sb_ft_paths_inside(&paths, base, 1, c->env->dir, &why);
	if (r == -EXDEV)
		sb_wl_fail(c, 0, "%s: refused: %s", t->name, why);
	else if (r < 0)
		r = sb_wl_fail(c, r == -EINVAL ? 0 : r, "%s", why ? why : t->name);
	free(why);
	sb_ft_paths_free(&paths);
	return r;
}

/* argv = prefix words, then the user's ARGS (or defaults) split on blanks. */
static int run_tool(struct sb_wl_ctx *c, const struct sb_ft_tool *t, const char *const *prefix,
		    size_t np, const char *args, struct sb_child *ch, char ***words_out)
{
	size_t nw = 0;
	char **words = sb_wl_split_words(args ? args : "", &nw);
	const char **argv;
	int rc;

	if (!words)
		return -ENOMEM;
	rc = args_inside(c, t, words, nw);
	if (rc < 0) {
		sb_wl_free_words(words);
		return rc;
	}
	argv = calloc(np + nw + 1, sizeof(*argv));
	if (!argv) {
		sb_wl_free_words(words);
		return -ENOMEM;
	}
	memcpy(argv, prefix, np * sizeof(*argv));
	memcpy(argv + np, words, nw * sizeof(*argv));
	*ch = (struct sb_child){.argv = argv,
				.cwd = c->work,
				.capture = true,
				.log_fd = c->env->log_fd,
				.stop = c->env->stop,
				.timeout_ms = (unsigned)(c->timeout_ns / 1000000)};
	rc = sb_spawn_run(ch);
	ch->argv = NULL;
	free(argv);
	*words_out = words;
	if (rc < 0)
		return sb_wl_fail(c, rc, "cannot start %s", prefix[0]);
	if (ch->timed_out || ch->stopped) {
		c->res->flags |= SB_RES_INCOMPLETE;
		if (!c->res->error)
			c->res->error =
			    strdup(ch->timed_out ? "hit its time limit" : "interrupted");
		return 0;
	}
	if (ch->status != 0) {
		const char *e = ch->err ? ch->err : "";
		return sb_wl_fail(c, 0, "%s exited with status %d%s%.300s", prefix[0], ch->status,
				  *e ? ": " : "", e);
	}
	return 0;
}

static int bonnie_run(struct sb_wl_ctx *c)
{
	const char *prefix[8] = {"bonnie++", "-q", "-d", c->work};
	size_t np = 4;
	struct sb_child ch = {0};
	char **words = NULL;
	const char *args = c->spec->arg;
	int rc;

	if (!sb_have_program("bonnie++"))
		return sb_wl_fail(c, 0, "bonnie++ is not installed (Debian package bonnie++)");
	/* bonnie++ refuses to run as root unless told whom to run as. */
	if (geteuid() == 0) {
		prefix[np++] = "-u";
		prefix[np++] = "root";
	}
	if (!args && c->env->quick)
		args = "-s 64 -r 32 -n 1";
	rc = run_tool(c, &sb_ft_bonnie, prefix, np, args, &ch, &words);
	if (rc == 0 && !(c->res->flags & SB_RES_INCOMPLETE)) {
		/* -q: the CSV line is what bonnie++ prints on stdout */
		char *line = NULL;
		for (char *p = ch.out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
			if (strncmp(p, "1.98,", 5) == 0)
				line = p;
		if (!line) {
			rc = sb_wl_fail(c, 0, "bonnie++ printed no CSV line");
		} else {
			char *end = strchr(line, '\n');
			if (end)
				*end = '\0';
			if (sb_bonnie_csv_import(line, c->res) < 0)
				rc = sb_wl_fail(
				    c, 0, "bonnie++'s CSV line is not format 1.98: %.200s", line);
			sb_wl_extra_str(c, "bonnie_csv", line);
		}
	}
	sb_child_release(&ch);
	sb_wl_free_words(words);
	return rc;
}

/* iozone's result table: a header line with "reclen", then one line of
 * numbers per record size; the columns after kB and reclen come in this
 * order (as many as the tests run). */
static const char *const iozone_cols[] = {
    "write",	    "rewrite",	 "read",	   "reread",	  "random_read",
    "random_write", "bkwd_read", "record_rewrite", "stride_read", "fwrite",
    "frewrite",	    "fread",	 "freread"};

int sb_iozone_import(struct sb_wl_result *r, const char *out)
{
	const char *h = strstr(out, "reclen");
	int n = 0;
	if (!h || !(h = strchr(h, '\n')))
		return -EINVAL;
	for (const char *line = h + 1; *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
		char *end;
		double kb = strtod(line, &end), rec;
		if (end == line)
			continue;
		rec = strtod(end, &end);
		for (size_t i = 0; i < ARRAY_SIZE(iozone_cols); i++) {
			char *e2, name[64];
			double v = strtod(end, &e2);
			if (e2 == end)
				break;
			end = e2;
			snprintf(name, sizeof(name), "r%.0fk_%s", rec, iozone_cols[i]);
			sb_wl_add_metric(r, name, "KB/s", SB_BETTER_HIGHER, v);
			n++;
		}
		(void)kb;
	}
	return n ? n : -EINVAL;
}

static int iozone_run(struct sb_wl_ctx *c)
{
	_cleanup_free_ char *file = NULL;
	struct sb_child ch = {0};
	char **words = NULL;
	const char *args = c->spec->arg;
	int rc;

	if (!sb_have_program("iozone"))
		return sb_wl_fail(c, 0,
				  "iozone is not installed (Debian package iozone3, non-free)");
	if (asprintf(&file, "%s/iozone.tmp", c->work) < 0)
		return -ENOMEM;
	if (!args)
		args = c->env->quick ? "-i 0 -i 1 -i 2 -s 16m -r 4k" : "-i 0 -i 1 -i 2 -s 1g -r 4k";
	const char *prefix[] = {"iozone", "-f", file};
	rc = run_tool(c, &sb_ft_iozone, prefix, 3, args, &ch, &words);
	if (rc == 0 && !(c->res->flags & SB_RES_INCOMPLETE) &&
	    (!ch.out || sb_iozone_import(c->res, ch.out) < 0))
		rc = sb_wl_fail(c, 0, "no result table in iozone's output");
	sb_child_release(&ch);
	sb_wl_free_words(words);
	return rc;
}

const struct sb_wl_ops sb_wl_bonnie = {
    .name = "bonnie++",
    .arg = "ARGS",
    .arg_optional = true,
    .arg_rest = true,
    .example = "bonnie++:-n 16 -s 0",
    .summary = "run bonnie++ ARGS in the directory under test; its CSV imported as seq and meta "
	       "figures",
    .opts = tool_opts,
    .opts_size = sizeof(struct tool_opts),
    .metrics_of = {"seq", "meta"},
    .check = bonnie_check,
    .run = bonnie_run,
};

/* iozone's columns per record size (the '*': "4"). */
static const struct sb_wl_metric iozone_metrics[] = {
    {"r*k_write", "iozone write (record *k)", "KB/s", SB_BETTER_HIGHER, true, NULL, false},
    {"r*k_rewrite", "iozone rewrite (record *k)", "KB/s", SB_BETTER_HIGHER, true, NULL, false},
    {"r*k_read", "iozone read (record *k)", "KB/s", SB_BETTER_HIGHER, true, NULL, false},
    {"r*k_reread", "iozone reread (record *k)", "KB/s", SB_BETTER_HIGHER, true, NULL, false},
    {"r*k_random_read", "iozone random read (record *k)", "KB/s", SB_BETTER_HIGHER, true, NULL,
     false},
    {"r*k_random_write", "iozone random write (record *k)", "KB/s", SB_BETTER_HIGHER, true, NULL,
     false},
    {"r*k_bkwd_read", "iozone bkwd read (record *k)", "KB/s", SB_BETTER_HIGHER, false, NULL, false},
    {"r*k_record_rewrite", "iozone record rewrite (record *k)", "KB/s", SB_BETTER_HIGHER, false,
     NULL, false},
    {"r*k_stride_read", "iozone stride read (record *k)", "KB/s", SB_BETTER_HIGHER, false, NULL,
     false},
    {"r*k_fwrite", "iozone fwrite (record *k)", "KB/s", SB_BETTER_HIGHER, false, NULL, false},
    {"r*k_frewrite", "iozone frewrite (record *k)", "KB/s", SB_BETTER_HIGHER, false, NULL, false},
    {"r*k_fread", "iozone fread (record *k)", "KB/s", SB_BETTER_HIGHER, false, NULL, false},
    {"r*k_freread", "iozone freread (record *k)", "KB/s", SB_BETTER_HIGHER, false, NULL, false},
    {0},
};

const struct sb_wl_ops sb_wl_iozone = {
    .name = "iozone",
    .arg = "ARGS",
    .arg_optional = true,
    .arg_rest = true,
    .example = "iozone:-i 0 -i 1 -i 2 -s 1g -r 16k",
    .summary = "run iozone ARGS on a file in the directory under test; its table imported "
	       "(KB/s per test and record size)",
    .opts = tool_opts,
    .opts_size = sizeof(struct tool_opts),
    .metrics = iozone_metrics,
    .check = iozone_check,
    .run = iozone_run,
};
