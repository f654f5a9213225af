/* fio job files: each key=value line a job file holds, against what fio would
 * do with it (a path, a device, a command, a program to load). */
#include "util/freetext-int.h"
#include "util/macro.h"
#include "util/strutil.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What fio does with a key's value. Names are fio's, '-' read as '_'. */
enum fio_kind { FK_PATHS, FK_PATH, FK_FORMAT, FK_FORBID, FK_ENGINE, FK_MEM };
static const struct {
	const char *key;
	enum fio_kind kind;
	const char *why;
} fio_keys[] = {
    {"filename", FK_PATHS, NULL},
    {"directory", FK_PATHS, NULL},
    {"filename_format", FK_FORMAT, NULL},
    {"opendir", FK_PATH, NULL},
    {"write_bw_log", FK_PATH, NULL},
    {"write_lat_log", FK_PATH, NULL},
    {"write_iops_log", FK_PATH, NULL},
    {"write_hist_log", FK_PATH, NULL},
    {"write_iolog", FK_PATH, NULL},
    {"read_iolog", FK_PATH, NULL},
    {"iolog", FK_PATH, NULL},
    {"merge_blktrace_file", FK_PATH, NULL},
    {"trigger_file", FK_PATH, NULL},
    {"http_s3_keyfile", FK_PATH, NULL},
    {"ioengine", FK_ENGINE, NULL},
    {"mem", FK_MEM, NULL},
    {"iomem", FK_MEM, NULL},
    {"exec_prerun", FK_FORBID, "runs a command as root"},
    {"exec_postrun", FK_FORBID, "runs a command as root"},
    {"trigger", FK_FORBID, "runs a command as root"},
    {"trigger_cmd", FK_FORBID, "runs a command as root"},
    {"trigger_remote_cmd", FK_FORBID, "runs a command as root"},
    {"ioscheduler", FK_FORBID, "switches the device's I/O scheduler, which nothing restores"},
    {"cgroup", FK_FORBID, "makes cgroups of its own outside the run's"},
    {"replay_redirect", FK_FORBID, "sends a replay to another device"},
    {"allow_mounted_write", FK_FORBID, "writes a device under a mounted file system"},
    {"profile", FK_FORBID, "a built-in profile names devices of its own"},
};

/* fio's own variables in filename_format (replaced by a word to check). */
static const char *const fio_vars[] = {"$jobname", "$jobnum", "$filenum", "$clientuid"};

static char *fio_path(const char *file, unsigned line, const char *key, const char *v, bool fmt,
		      struct sb_ft_paths *out)
{
	_cleanup_free_ char *p = strdup(v);
	if (!p)
		return strdup("out of memory");
	for (size_t i = 0; fmt && i < ARRAY_SIZE(fio_vars); i++)
		for (char *q; (q = strstr(p, fio_vars[i]));) {
			size_t l = strlen(fio_vars[i]);
			memmove(q + 1, q + l, strlen(q + l) + 1);
			*q = 'x';
		}
	if (strchr(p, '$'))
		return sb_asprintf("%s:%u: %s=%s: no variables in a path (fio would expand them "
				   "from the environment): give the path",
				   file, line, key, v);
	if (sb_ft_names_device(p))
		return sb_asprintf("%s:%u: %s=%s names a device: fio writes only files inside "
				   "the file system under test",
				   file, line, key, v);
	return *p && sb_ft_paths_add(out, p) < 0 ? strdup("out of memory") : NULL;
}

/* filename= and directory= hold lists split by ':' ("\:" is a colon). */
static char *fio_paths(const char *file, unsigned line, const char *key, const char *v,
		       struct sb_ft_paths *out)
{
	_cleanup_free_ char *buf = malloc(strlen(v) + 1);
	size_t n = 0;
	char *m = NULL;
	if (!buf)
		return strdup("out of memory");
	for (const char *c = v;; c++) {
		if (*c == '\\' && c[1] == ':') {
			buf[n++] = *++c;
			continue;
		}
		if (*c && *c != ':') {
			buf[n++] = *c;
			continue;
		}
		/* blanks around a name: checked without them, as fio may take it */
		while (n && (buf[n - 1] == ' ' || buf[n - 1] == '\t'))
			n--;
		buf[n] = '\0';
		const char *b = buf + strspn(buf, " \t");
		if ((m = fio_path(file, line, key, b, false, out)) || !*c)
			return m;
		n = 0;
	}
}

static char *fio_value(const char *file, unsigned line, const char *key, const char *v,
		       struct sb_ft_paths *paths, struct sb_ft_paths *dirs)
{
	for (size_t i = 0; i < ARRAY_SIZE(fio_keys); i++) {
		if (strcmp(key, fio_keys[i].key) != 0)
			continue;
		switch (fio_keys[i].kind) {
		case FK_PATHS:
			return fio_paths(file, line, key, v,
					 strcmp(key, "directory") == 0 ? dirs : paths);
		case FK_PATH:
		case FK_FORMAT:
			return fio_path(file, line, key, v, fio_keys[i].kind == FK_FORMAT, paths);
		case FK_FORBID:
			return sb_asprintf("%s:%u: '%s' is refused: it %s", file, line, key,
					   fio_keys[i].why);
		case FK_ENGINE:
			/* external:LIB.so and exec load or run programs of
			 * the job file's choosing */
			if (strncmp(v, "external", 8) == 0 || strchr(v, '/') ||
			    strcmp(v, "exec") == 0)
				return sb_asprintf("%s:%u: ioengine=%s is refused: it loads or "
						   "runs a program of the job file's choosing",
						   file, line, v);
			return NULL;
		case FK_MEM: {
			/* mmaphuge:/path, mmapshared:/path: a file backs the buffers */
			const char *c = strchr(v, ':');
			return c ? fio_path(file, line, key, c + 1, false, paths) : NULL;
		}
		}
	}
	return NULL;
}

char *sb_ft_fio_include(const char *line)
{
	line += strspn(line, " \t");
	if (strncmp(line, "include", 7) != 0 || (line[7] != ' ' && line[7] != '\t'))
		return NULL;
	line += 7 + strspn(line + 7, " \t");
	size_t n = strcspn(line, "\r\n");
	while (n && isspace((unsigned char)line[n - 1]))
		n--;
	return strndup(line, n);
}

int sb_ft_fio_check(const char *text, const char *file, struct sb_ft_paths *paths,
		    struct sb_ft_paths *dirs, char **why)
{
	unsigned line = 0;

	*why = NULL;
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		size_t len = strcspn(p, "\n");
		_cleanup_free_ char *l = strndup(p, len);
		char key[128], *s, *eq;
		line++;
		if (!l)
			return -ENOMEM;
		s = l + strspn(l, " \t\r");
		s[strcspn(s, "\r")] = '\0';
		if (!*s || *s == ';' || *s == '#' || *s == '[' || strncmp(s, "include", 7) == 0)
			continue;
		eq = strchr(s, '=');
		size_t kl = eq ? (size_t)(eq - s) : strlen(s);
		while (kl && isspace((unsigned char)s[kl - 1]))
			kl--;
		snprintf(key, sizeof(key), "%.*s", (int)kl, s);
		for (char *k = key; *k; k++)
			*k = *k == '-' ? '_' : (char)tolower((unsigned char)*k);
		const char *v = eq ? eq + 1 + strspn(eq + 1, " \t") : "";
		_cleanup_free_ char *val = strdup(v);
		if (!val)
			return -ENOMEM;
		for (size_t n = strlen(val); n && isspace((unsigned char)val[n - 1]); n--)
			val[n - 1] = '\0';
		/* A key alone is a boolean (write_bw_log alone: a log named after
		 * the job, in the work directory). */
		if (!eq && strcmp(key, "exec_prerun") != 0 && strcmp(key, "exec_postrun") != 0)
			continue;
		/* fio fills ${VAR} from the environment in any value: what it
		 * would become is not what was checked (ioengine=${E}). */
		if (strstr(val, "${")) {
			*why = sb_asprintf("%s:%u: %s=%s: fio would expand the environment "
					   "variable; give the value",
					   file, line, key, val);
			return -EINVAL;
		}
		/* one pair of quotes around a value: checked without them */
		size_t vl = strlen(val);
		if (vl >= 2 && (val[0] == '"' || val[0] == '\'') && val[vl - 1] == val[0]) {
			memmove(val, val + 1, vl - 2);
			val[vl - 2] = '\0';
		}
		if ((*why = fio_value(file, line, key, val, paths, dirs)))
			return -EINVAL;
	}
	return 0;
}
