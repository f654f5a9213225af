/* `stackbench list profiles`: the shipped profiles (./profiles, then
 * SB_DATADIR/profiles), each with the first line of its comment block. */
#include "util/exitcode.h"
#include "profile/profile.h"
#include "util/log.h"
#include "util/macro.h"

#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include <libsmartcols.h>
#include <string.h>

/* The first paragraph of the comment block, on one line. */
static char *summary(const char *path)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	char line[512], *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	if (!m)
		return NULL;
	while (f && fgets(line, sizeof(line), f)) {
		char *s = line;
		if (*s != '#')
			break;
		while (*s == '#' || *s == ' ')
			s++;
		s[strcspn(s, "\n")] = '\0';
		if (!*s) {
			if (ftell(m) > 0)
				break;
			continue;
		}
		fprintf(m, "%s%s", ftell(m) > 0 ? " " : "", s);
	}
	fclose(m);
	return out;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t sb_profile_dirs(const char *dirs[], size_t max)
{
	static char exe_parent[PATH_MAX], exe_share[PATH_MAX], exe_build[PATH_MAX];
	const char *env = getenv("STACKBENCH_PROFILES");
	char exe[PATH_MAX];
	ssize_t len;
	size_t n = 0;

#define ADD(d)                                                                                     \
	do {                                                                                       \
		bool dup_ = false;                                                                 \
		for (size_t k_ = 0; k_ < n; k_++)                                                  \
			dup_ |= strcmp(dirs[k_], (d)) == 0;                                        \
		if (!dup_ && n < max)                                                              \
			dirs[n++] = (d);                                                           \
	} while (0)
	ADD("profiles");
	if (env && *env)
		ADD(env);
	/* Next to the executable: run from a build tree (build/stackbench ->
	 * profiles/) or installed under another prefix than SB_DATADIR's. */
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len > 0) {
		char cand[PATH_MAX + 32];
		exe[len] = '\0';
		snprintf(exe_parent, sizeof(exe_parent), "%s", dirname(exe));
		/* build/stackbench or build/asan/stackbench */
		snprintf(cand, sizeof(cand), "%s/../profiles", exe_parent);
		if (!realpath(cand, exe_build))
			snprintf(cand, sizeof(cand), "%s/../../profiles", exe_parent);
		if (realpath(cand, exe_build))
			ADD(exe_build);
		snprintf(cand, sizeof(cand), "%s/../share/stackbench/profiles", exe_parent);
		if (realpath(cand, exe_share))
			ADD(exe_share);
	}
	ADD(SB_DATADIR "/profiles");
#undef ADD
	return n;
}

const char *sb_profile_dirs_text(void)
{
	static char buf[4 * PATH_MAX];
	const char *dirs[8];
	size_t n = sb_profile_dirs(dirs, ARRAY_SIZE(dirs)), off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && off < sizeof(buf); i++)
		off +=
		    (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? ", " : "", dirs[i]);
	return buf;
}

int sb_list_profiles(void)
{
	const char *dirs[8];
	size_t n_dirs = sb_profile_dirs(dirs, ARRAY_SIZE(dirs));
	struct libscols_table *tb = scols_new_table();
	char *seen[256];
	size_t n_seen = 0;
	int r = 0;

	if (!tb)
		return sb_error_errno(-ENOMEM, "list profiles");
	scols_table_new_column(tb, "NAME", 0, 0);
	scols_table_new_column(tb, "PATH", 0, 0);
	scols_table_new_column(tb, "DESCRIPTION", 0, SCOLS_FL_TRUNC);
	for (size_t d = 0; d < n_dirs; d++) {
		struct dirent **ents = NULL;
		int n = scandir(dirs[d], &ents, NULL, alphasort);
		for (int i = 0; i < n; i++) {
			const char *fn = ents[i]->d_name;
			size_t len = strlen(fn);
			_cleanup_free_ char *path = NULL, *name = NULL, *sum = NULL;
			bool dup = false;

			if (len > 5 && strcmp(fn + len - 5, ".conf") == 0 &&
			    n_seen < ARRAY_SIZE(seen)) {
				name = strndup(fn, len - 5);
				for (size_t k = 0; name && k < n_seen; k++)
					dup |= strcmp(seen[k], name) == 0;
				if (name && !dup && asprintf(&path, "%s/%s", dirs[d], fn) >= 0) {
					struct libscols_line *ln = scols_table_new_line(tb, NULL);
					sum = summary(path);
					scols_line_set_data(ln, 0, name);
					scols_line_set_data(ln, 1, path);
					scols_line_set_data(ln, 2, sum ? sum : "");
					seen[n_seen++] = TAKE_PTR(name);
				}
			}
			free(ents[i]);
		}
		free(ents);
	}
	qsort(seen, n_seen, sizeof(seen[0]), cmp_str);
	if (n_seen == 0) {
		sb_error("list profiles: no profiles found (looked in %s)", sb_profile_dirs_text());
		r = SB_EXIT_FAILED;
	} else {
		scols_print_table(tb);
	}
	for (size_t k = 0; k < n_seen; k++)
		free(seen[k]);
	scols_unref_table(tb);
	return r;
}
