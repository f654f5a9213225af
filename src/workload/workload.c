/* Workload registry and spec handling.
 * Placeholder until the workload engine lands: only command:CMD works. */
#include "workload/workload.h"
#include "cmd.h"
#include "util/log.h"
#include "util/spawn.h"

#include <ctype.h>
#include <string.h>

/* Split CMD into words on blanks (no quoting, no shell: the words become argv). */
static char **split_words(const char *s, size_t *n)
{
	char **v = NULL, *copy = strdup(s), *save = NULL;
	size_t k = 0;
	if (!copy)
		return NULL;
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		char **nv = realloc(v, (k + 2) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		v[k++] = strdup(w);
		v[k] = NULL;
	}
	free(copy);
	*n = k;
	return v;
}

int sb_workload_check(const char *spec, char **err)
{
	if (strncmp(spec, "command:", 8) == 0 && spec[8])
		return 0;
	if (asprintf(err, "workload '%s': unknown (expected command:CMD)", spec) < 0)
		*err = NULL;
	return -EINVAL;
}

int sb_workload_run(const char *spec, const struct sb_wl_env *env, struct sb_wl_result **out,
		    char **err)
{
	struct sb_wl_result *r;
	size_t n = 0;
	char **words;
	int rc;

	rc = sb_workload_check(spec, err);
	if (rc < 0)
		return rc;
	words = split_words(spec + 8, &n);
	if (!words || n == 0)
		return -EINVAL;
	struct sb_child c = {.argv = (const char *const *)words, .cwd = env->dir,
			     .log_fd = env->log_fd, .stop = env->stop};
	rc = sb_spawn_run(&c);
	r = sb_wl_result_new("command", spec);
	if (rc == 0) {
		sb_wl_add_metric(r, "wall", "s", SB_BETTER_LOWER, c.wall_s);
		sb_wl_add_metric(r, "user", "s", SB_BETTER_LOWER,
				 c.ru.ru_utime.tv_sec + c.ru.ru_utime.tv_usec / 1e6);
		sb_wl_add_metric(r, "sys", "s", SB_BETTER_LOWER,
				 c.ru.ru_stime.tv_sec + c.ru.ru_stime.tv_usec / 1e6);
		if (c.status != 0) {
			r->flags |= SB_RES_FAILED;
			rc = -EIO;
			if (asprintf(err, "workload '%s': exited with status %d", spec, c.status) < 0)
				*err = NULL;
		}
	} else if (asprintf(err, "workload '%s': cannot start %s: %s", spec, words[0],
			    strerror(-rc)) < 0) {
		*err = NULL;
	}
	sb_child_release(&c);
	for (size_t i = 0; i < n; i++)
		free(words[i]);
	free(words);
	*out = r;
	return rc;
}

int sb_list_workloads(void)
{
	printf("command:CMD   run CMD (split into words, no shell) in the mounted file system\n");
	return 0;
}
