/* See spawn.h. */
#include "util/spawn.h"
#include "util/macro.h"
#include "util/clock.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static int buf_append(char **buf, size_t *len, const char *data, size_t n)
{
	char *p = realloc(*buf, *len + n + 1);
	if (!p)
		return -ENOMEM;
	memcpy(p + *len, data, n);
	*len += n;
	p[*len] = '\0';
	*buf = p;
	return 0;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static unsigned def_timeout_ms;
static volatile sig_atomic_t *def_stop;

void sb_spawn_defaults(unsigned timeout_ms, volatile sig_atomic_t *stop)
{
	def_timeout_ms = timeout_ms;
	def_stop = stop;
}

/* Starts c->argv with default signals, stdin from /dev/null and, when
 * piped, stdout and stderr into the pipes' write ends. */
static int spawn_start(struct sb_child *c, bool piped, int out_w, int err_w, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t def;
	int r;

	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	/* Children start with default signal handling and an empty mask, in their
	 * own process group so that a time limit can stop all they started. */
	sigemptyset(&def);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGCHLD);
	posix_spawnattr_setsigdefault(&attr, &def);
	sigemptyset(&def);
	posix_spawnattr_setsigmask(&attr, &def);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK |
					    POSIX_SPAWN_SETPGROUP);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (piped) {
		posix_spawn_file_actions_adddup2(&fa, out_w, 1);
		posix_spawn_file_actions_adddup2(&fa, err_w, 2);
	}
	if (c->cwd)
		posix_spawn_file_actions_addchdir_np(&fa, c->cwd);

	r = -posix_spawnp(pid, c->argv[0], &fa, &attr, (char *const *)c->argv,
			  c->envp ? c->envp : environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return r;
}

/* Reads what the child wrote since the last call (100 ms at most), into the
 * log and the captured buffers; a pipe at its end is closed. */
static void spawn_drain(struct sb_child *c, int pout[2], int perr[2])
{
	struct pollfd pfd[2] = {{pout[0], POLLIN, 0}, {perr[0], POLLIN, 0}};
	int n;

	n = poll(pfd, 2, 100);
	for (int i = 0; n > 0 && i < 2; i++) {
		char buf[8192];
		ssize_t got;
		if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		got = read(pfd[i].fd, buf, sizeof(buf));
		if (got <= 0) {
			close(pfd[i].fd);
			if (i == 0)
				pout[0] = -1;
			else
				perr[0] = -1;
			continue;
		}
		if (c->log_fd >= 0)
			write_all(c->log_fd, buf, (size_t)got);
		if (c->capture) {
			if (i == 0)
				buf_append(&c->out, &c->out_len, buf, (size_t)got);
			else
				buf_append(&c->err, &c->err_len, buf, (size_t)got);
		}
	}
}

int sb_spawn_run(struct sb_child *c)
{
	int pout[2] = {-1, -1}, perr[2] = {-1, -1};
	pid_t pid;
	int r;
	bool piped = c->capture || c->log_fd >= 0;
	double start = sb_mono_s(), term_at = 0;
	unsigned timeout_ms = c->timeout_ms ? c->timeout_ms : def_timeout_ms;
	volatile sig_atomic_t *stop = c->stop ? c->stop : def_stop;

	c->out = c->err = NULL;
	c->out_len = c->err_len = 0;
	c->status = -1;
	c->timed_out = c->stopped = false;
	memset(&c->ru, 0, sizeof(c->ru));

	if (piped && (pipe2(pout, O_CLOEXEC) < 0 || pipe2(perr, O_CLOEXEC) < 0)) {
		r = negerrno();
		goto out_close;
	}

	r = spawn_start(c, piped, pout[1], perr[1], &pid);
	if (r < 0)
		goto out_close;

	if (piped) {
		close(TAKE_FD(pout[1]));
		close(TAKE_FD(perr[1]));
	}

	for (;;) {
		int status;
		pid_t w;

		if (piped && (pout[0] >= 0 || perr[0] >= 0)) {
			spawn_drain(c, pout, perr);
		} else {
			w = wait4(pid, &status, WNOHANG, &c->ru);
			if (w == pid) {
				c->status = WIFEXITED(status) ? WEXITSTATUS(status)
							      : 128 + WTERMSIG(status);
				break;
			}
			if (w < 0 && errno != EINTR) {
				r = negerrno();
				goto out_close;
			}
			struct timespec ts = {0, 10 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}

		double t = sb_mono_s();
		bool want_stop = (timeout_ms && t - start > timeout_ms / 1000.0) || (stop && *stop);
		if (want_stop && term_at == 0) {
			if (stop && *stop)
				c->stopped = true;
			else
				c->timed_out = true;
			kill(-pid, SIGTERM);
			term_at = t;
		} else if (term_at > 0 && t - term_at > 5.0) {
			kill(-pid, SIGKILL);
		}
	}
	c->wall_s = sb_mono_s() - start;
	r = 0;

out_close:
	for (int i = 0; i < 2; i++) {
		if (pout[i] >= 0)
			close(pout[i]);
		if (perr[i] >= 0)
			close(perr[i]);
	}
	if (c->capture) {
		/* Callers may treat out and err as strings even when empty. */
		if (!c->out)
			buf_append(&c->out, &c->out_len, "", 0);
		if (!c->err)
			buf_append(&c->err, &c->err_len, "", 0);
	}
	return r;
}

void sb_child_release(struct sb_child *c)
{
	free(c->out);
	free(c->err);
	c->out = c->err = NULL;
}

int sb_run_argv(const char *const *argv, char **out)
{
	struct sb_child c = {.argv = argv, .capture = true, .log_fd = -1};
	int r = sb_spawn_run(&c);
	if (r < 0) {
		sb_child_release(&c); /* capture allocates even when the spawn fails */
		return r;
	}
	if (out)
		*out = TAKE_PTR(c.out);
	sb_child_release(&c);
	return c.status;
}

char *sb_program_path(const char *name)
{
	const char *path = getenv("PATH");
	_cleanup_free_ char *copy = NULL;
	char *save = NULL;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? strdup(name) : NULL;
	if (!path)
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	copy = strdup(path);
	if (!copy)
		return NULL;
	for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char full[4096];
		struct stat st;
		snprintf(full, sizeof(full), "%s/%s", dir, name);
		if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0)
			return strdup(full);
	}
	return NULL;
}

bool sb_have_program(const char *name)
{
	_cleanup_free_ char *p = sb_program_path(name);
	return p != NULL;
}

static bool needs_quote(const char *s)
{
	if (!*s)
		return true;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "-_./=:,+@%",
			    *s))
			return true;
	return false;
}

char *sb_argv_format(const char *const *argv)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			fputc(' ', f);
		if (!needs_quote(argv[i])) {
			fputs(argv[i], f);
			continue;
		}
		fputc('\'', f);
		for (const char *p = argv[i]; *p; p++) {
			if (*p == '\'')
				fputs("'\\''", f);
			else
				fputc(*p, f);
		}
		fputc('\'', f);
	}
	fclose(f);
	return buf;
}
