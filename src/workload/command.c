/* command:CMD: run a program (a kernel build, say) with the file system under
 * test as working directory; wall, user and sys time. CMD is split into words
 * on blanks and run without a shell. */
#include "workload/wl.h"
#include "util/spawn.h"

#include <string.h>

/* The typed options command_opts fills (command.c). */
struct command_opts {
	struct sb_wl_common com;
};

static inline const struct command_opts *command_o(const struct sb_wl_spec *s)
{
	return s->o;
}

static const struct sb_wl_opt command_opts[] = {
    SB_WL_TIMEOUT_ROW(struct command_opts, "24h", "30m",
		      "time limit; the command is stopped past it and flagged incomplete"),
    {0},
};

/* Words of CMD as an argv (NULL-terminated). The slot before argv[0] owns
 * the copy the words point into; free with sb_wl_free_words. */
char **sb_wl_split_words(const char *s, size_t *n)
{
	size_t len = strlen(s), k = 0;
	char *copy = strdup(s), *save = NULL;
	char **v = calloc(len / 2 + 3, sizeof(*v));

	if (!copy || !v) {
		free(copy);
		free(v);
		return NULL;
	}
	v[0] = copy;
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		v[1 + k++] = w;
	*n = k;
	return v + 1;
}

void sb_wl_free_words(char **argv)
{
	if (argv) {
		free(argv[-1]);
		free(argv - 1);
	}
}

static int parse_cmd(const char *arg, struct sb_wl_spec *s, char **why)
{
	if (!arg[strspn(arg, " \t")]) {
		*why = strdup("empty command");
		return -EINVAL;
	}
	return 0;
}

static int command_run(struct sb_wl_ctx *c)
{
	size_t n = 0;
	char **words = sb_wl_split_words(c->spec->arg, &n);
	int rc;

	if (!words)
		return -ENOMEM;
	if (!n) {
		sb_wl_free_words(words);
		return sb_wl_fail(c, 0, "empty command");
	}
	struct sb_child ch = {.argv = (const char *const *)words,
			      .cwd = c->env->dir,
			      .log_fd = c->env->log_fd,
			      .stop = c->env->stop,
			      .timeout_ms = (unsigned)(c->timeout_ns / 1000000)};
	rc = sb_spawn_run(&ch);
	if (rc < 0) {
		rc = sb_wl_fail(c, rc, "cannot start %s", words[0]);
		goto out;
	}
	sb_wl_add_metric(c->res, "wall", "s", SB_BETTER_LOWER, ch.wall_s);
	sb_wl_add_metric(c->res, "user", "s", SB_BETTER_LOWER,
			 ch.ru.ru_utime.tv_sec + ch.ru.ru_utime.tv_usec / 1e6);
	sb_wl_add_metric(c->res, "sys", "s", SB_BETTER_LOWER,
			 ch.ru.ru_stime.tv_sec + ch.ru.ru_stime.tv_usec / 1e6);
	sb_wl_extra_int(c, "exit_status", ch.status);
	if (ch.timed_out) {
		c->res->flags |= SB_RES_INCOMPLETE;
		c->res->error = strdup("hit its time limit");
	} else if (!ch.stopped && ch.status != 0) {
		rc = sb_wl_fail(c, 0, "%s exited with status %d", words[0], ch.status);
	}
out:
	sb_child_release(&ch);
	sb_wl_free_words(words);
	return rc;
}

/* The wall time is the headline; CPU times are often near zero. */
static const struct sb_wl_metric command_metrics[] = {
    {"wall", "Wall time", "s", SB_BETTER_LOWER, true, NULL, false},
    {"user", "User time", "s", SB_BETTER_LOWER, false, NULL, false},
    {"sys", "System time", "s", SB_BETTER_LOWER, false, NULL, false},
    {0},
};

const struct sb_wl_ops sb_wl_command = {
    .name = "command",
    .arg = "CMD",
    .arg_rest = true,
    .example = "command:make -j8",
    .summary = "run CMD (split into words, no shell) in the directory under test; wall, user, "
	       "sys seconds",
    .opts = command_opts,
    .opts_size = sizeof(struct command_opts),
    .metrics = command_metrics,
    .parse_arg = parse_cmd,
    .run = command_run,
};
