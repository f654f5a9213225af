/* The run journal: one JSON object per line, fsynced, so that teardown can
 * undo a killed run from it alone. Format in doc/profile-format.md
 * ("Journal"). A torn last line (a crash while writing) is skipped: its step
 * had not started, since a step starts only after its record is on disk.
 * A damaged line anywhere else cannot come from a crash: the whole journal
 * is refused, and nothing is undone from it. */
#include "stack/stack.h"
#include "util/macro.h"

#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct sb_journal {
	int fd;
};

static int append(struct sb_journal *j, json_object *o)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	size_t len = strlen(s);
	_cleanup_free_ char *line = malloc(len + 2);
	const char *p;

	if (!line)
		return -ENOMEM;
	memcpy(line, s, len);
	line[len++] = '\n';
	for (p = line; len > 0;) {
		ssize_t w = write(j->fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return negerrno();
		}
		p += w;
		len -= (size_t)w;
	}
	return fdatasync(j->fd) < 0 ? negerrno() : 0;
}

/* The file's name must be durable too, or a crash could lose it. */
static void sync_dir(const char *path)
{
	_cleanup_free_ char *dir = strdup(path);
	int dfd = dir ? open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
}

static int header(struct sb_journal *j, const char *run_id)
{
	char ts[32];
	time_t t = time(NULL);
	struct tm tm;
	int r;

	gmtime_r(&t, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object *h = json_object_new_object();
	json_object_object_add(h, "journal", json_object_new_string("stackbench"));
	json_object_object_add(h, "version", json_object_new_int(1));
	json_object_object_add(h, "run", json_object_new_string(run_id));
	json_object_object_add(h, "pid", json_object_new_int64(getpid()));
	json_object_object_add(h, "created", json_object_new_string(ts));
	r = append(j, h);
	json_object_put(h);
	return r;
}

int sb_journal_open(const char *path, const char *run_id, struct sb_journal **out)
{
	struct sb_journal *j;
	int fd, r;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0)
		return negerrno();
	sync_dir(path);
	j = calloc(1, sizeof(*j));
	if (!j) {
		close(fd);
		return -ENOMEM;
	}
	j->fd = fd;
	r = header(j, run_id);
	if (r < 0) {
		sb_journal_close(j);
		unlink(path);
		return r;
	}
	*out = j;
	return 0;
}

int sb_journal_reopen(const char *path, struct sb_journal **out)
{
	struct sb_journal *j;
	int fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return negerrno();
	j = calloc(1, sizeof(*j));
	if (!j) {
		close(fd);
		return -ENOMEM;
	}
	j->fd = fd;
	*out = j;
	return 0;
}

int sb_journal_rewrite(const char *path, const char *run_id, const struct sb_jrec *const *rec,
		       size_t n)
{
	_cleanup_free_ char *tmp = NULL;
	struct sb_journal j = {.fd = -1};
	int r;

	if (asprintf(&tmp, "%s.new", path) < 0)
		return -ENOMEM;
	j.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (j.fd < 0)
		return negerrno();
	r = header(&j, run_id);
	for (size_t i = 0; i < n && r == 0; i++) {
		unsigned step = SB_JOURNAL_KEPT_STEP + (unsigned)i;
		r = sb_journal_begin(&j, step, rec[i]->kind, rec[i]->args, rec[i]->ident);
		if (r == 0)
			r = sb_journal_done(&j, step, rec[i]->result);
	}
	close(j.fd);
	if (r == 0 && rename(tmp, path) < 0)
		r = negerrno();
	if (r < 0) {
		unlink(tmp);
		return r;
	}
	sync_dir(path);
	return 0;
}

int sb_journal_begin(struct sb_journal *j, unsigned step, const char *kind, json_object *args,
		     json_object *ident)
{
	json_object *o = json_object_new_object();
	int r;
	json_object_object_add(o, "rec", json_object_new_string("begin"));
	json_object_object_add(o, "step", json_object_new_int((int)step));
	json_object_object_add(o, "kind", json_object_new_string(kind));
	json_object_object_add(o, "args", json_object_get(args));
	if (ident)
		json_object_object_add(o, "ident", json_object_get(ident));
	r = append(j, o);
	json_object_put(o);
	return r;
}

int sb_journal_done(struct sb_journal *j, unsigned step, json_object *result)
{
	json_object *o = json_object_new_object();
	int r;
	json_object_object_add(o, "rec", json_object_new_string("done"));
	json_object_object_add(o, "step", json_object_new_int((int)step));
	json_object_object_add(o, "result", json_object_get(result));
	r = append(j, o);
	json_object_put(o);
	return r;
}

void sb_journal_close(struct sb_journal *j)
{
	if (!j)
		return;
	if (j->fd >= 0)
		close(j->fd);
	free(j);
}

static struct sb_jrec *find_rec(struct sb_jread *r, unsigned step)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->rec[i].step == step)
			return &r->rec[i];
	return NULL;
}

static int handle(struct sb_jread *r, json_object *o)
{
	json_object *v, *args;
	const char *rec;
	unsigned step;

	if (json_object_object_get_ex(o, "journal", &v)) {
		if (!json_object_is_type(v, json_type_string) ||
		    strcmp(json_object_get_string(v), "stackbench") != 0)
			return -EBADMSG;
		if (json_object_object_get_ex(o, "run", &v) &&
		    json_object_is_type(v, json_type_string)) {
			free(r->run_id);
			r->run_id = strdup(json_object_get_string(v));
		}
		if (json_object_object_get_ex(o, "pid", &v))
			r->pid = (long)json_object_get_int64(v);
		return 0;
	}
	if (!json_object_object_get_ex(o, "rec", &v) || !json_object_is_type(v, json_type_string))
		return -EBADMSG;
	rec = json_object_get_string(v);
	if (!json_object_object_get_ex(o, "step", &v) || !json_object_is_type(v, json_type_int))
		return -EBADMSG;
	step = (unsigned)json_object_get_int(v);
	if (strcmp(rec, "begin") == 0) {
		struct sb_jrec *n;
		if (!json_object_object_get_ex(o, "kind", &v) ||
		    !json_object_is_type(v, json_type_string) ||
		    !json_object_object_get_ex(o, "args", &args) ||
		    !json_object_is_type(args, json_type_object) || find_rec(r, step))
			return -EBADMSG;
		n = realloc(r->rec, (r->n + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		r->rec = n;
		json_object *id = NULL;
		if (json_object_object_get_ex(o, "ident", &id) &&
		    !json_object_is_type(id, json_type_object))
			return -EBADMSG;
		n[r->n] = (struct sb_jrec){step, strdup(json_object_get_string(v)),
					   json_object_get(args), json_object_get(id), NULL};
		if (!n[r->n].kind) {
			json_object_put(args);
			return -ENOMEM;
		}
		r->n++;
		return 0;
	}
	if (strcmp(rec, "done") == 0) {
		struct sb_jrec *b = find_rec(r, step);
		if (!b || !json_object_object_get_ex(o, "result", &v) || b->result ||
		    !json_object_is_type(v, json_type_object))
			return -EBADMSG;
		b->result = json_object_get(v);
		return 0;
	}
	return -EBADMSG;
}

int sb_journal_parse(const char *text, size_t len, struct sb_jread *out)
{
	const char *p = text, *end = text + len;
	bool header = false, complete = false;
	unsigned lineno = 0;

	*out = (struct sb_jread){0};
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		json_object *o;
		int r;

		lineno++;
		if (!nl) {
			/* The writer died in the middle of this line. */
			out->torn++;
			break;
		}
		complete = true;
		char *line = strndup(p, (size_t)(nl - p));
		if (!line) {
			sb_jread_free(out);
			return -ENOMEM;
		}
		o = json_tokener_parse(line);
		free(line);
		r = o && json_object_is_type(o, json_type_object) ? handle(out, o) : -EBADMSG;
		json_object_put(o);
		if (r == -ENOMEM) {
			sb_jread_free(out);
			return r;
		}
		p = nl + 1;
		if (r < 0) {
			/* Tolerated as the last line only: a crash ends the file. */
			if (p < end) {
				sb_jread_free(out);
				out->bad_line = lineno;
				return -EBADMSG;
			}
			out->torn++;
		} else if (out->run_id) {
			header = true;
		}
	}
	/* Only a torn first line: the writer died on the header, before any
	 * step began. Nothing to undo, which is not an unreadable journal. */
	if (!header && out->n == 0 && complete) {
		sb_jread_free(out);
		out->bad_line = 1;
		return -EBADMSG;
	}
	return 0;
}

int sb_journal_read(const char *path, struct sb_jread *out)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 0;

	if (fd < 0)
		return negerrno();
	for (;;) {
		if (len == cap) {
			char *nb = realloc(buf, cap = cap ? cap * 2 : 8192);
			if (!nb)
				return -ENOMEM;
			buf = nb;
		}
		ssize_t got = read(fd, buf + len, cap - len);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return negerrno();
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	return sb_journal_parse(buf ? buf : "", len, out);
}

void sb_jread_free(struct sb_jread *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->rec[i].kind);
		json_object_put(r->rec[i].args);
		json_object_put(r->rec[i].ident);
		json_object_put(r->rec[i].result);
	}
	free(r->rec);
	free(r->run_id);
	*r = (struct sb_jread){0};
}
