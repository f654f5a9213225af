/* --cap-cache: the memory a workload needs of its own (the cap's floor), and
 * the workload run in a child inside the memory cgroup. */
#include "workload/wl.h"
#include "workload/workload-int.h"
#include "util/macro.h"
#include "util/memcap.h"
#include "util/size.h"
#include "util/strutil.h"

#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the memory a workload needs of its own (--cap-cache's floor) ---- */

/* What the child adds besides its buffers: thread stacks, libc's arenas,
 * the result's JSON (the pages it shares with stackbench after the fork
 * stay charged to stackbench's cgroup). Measured with no floor: --quick
 * seq, meta and rand:4k run under a 2 MiB cap; mixed:2r1w is killed under
 * 2 MiB, rand:64k,threads=8 under 1 MiB. The floor keeps a margin. */
#define MEM_BASE (4ull << 20)

uint64_t sb_workload_mem_bytes(const char *spec, bool quick, uint64_t ram)
{
	struct sb_wl_spec s;
	char *err = NULL;
	uint64_t n = MEM_BASE, data = sb_workload_data_bytes(spec, quick, ram);

	if (sb_wl_spec_parse(spec, quick, &s, &err) < 0) {
		free(err);
		return 0;
	}
	if (s.ops->mem_bytes)
		n += s.ops->mem_bytes(&s, data);
	sb_wl_spec_release(&s);
	return n;
}

int sb_workload_check_cap(const char *const *specs, size_t n, bool quick, uint64_t cap, char **err)
{
	*err = NULL;
	for (size_t i = 0; i < n; i++) {
		uint64_t need = sb_workload_mem_bytes(specs[i], quick, cap);
		if (need > cap) {
			char a[32], b[32];
			sb_format_size(cap, a, sizeof(a));
			sb_format_size(need, b, sizeof(b));
			*err = sb_asprintf(
			    "--cap-cache: the cap of %s (%llu bytes) is smaller than "
			    "workload '%s' needs for its own buffers: %s (%llu bytes) "
			    "at least; give a larger --ram or smaller buffers",
			    a, (unsigned long long)cap, specs[i], b, (unsigned long long)need);
			return -EINVAL;
		}
	}
	return 0;
}

/* ---- --cap-cache: the workload in a child inside the memory cgroup ---- */

static volatile sig_atomic_t *child_stop;

static void on_forwarded_stop(int sig)
{
	(void)sig;
	if (child_stop)
		*child_stop = 1;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The child: into the cgroup, run, hand {rc, err, result} back as JSON.
 * Never returns. */
static void __attribute__((noreturn)) capped_child(struct sb_wl_ctx *c, const struct sb_memcap *m,
						   int fd, pid_t parent, const sigset_t *old)
{
	struct sigaction sa = {.sa_handler = on_forwarded_stop};
	int rc;

	/* The workload dies with stackbench (kill -9 of the run): what it
	 * leaves, the cgroup's undo kills. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(125);
	child_stop = c->env->stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigprocmask(SIG_SETMASK, old, NULL);
	rc = sb_memcap_join(m);
	if (rc < 0)
		rc = sb_wl_fail(c, rc, "--cap-cache: cannot move the workload into %s", m->dir);
	else
		rc = c->spec->ops->run(c);
	json_object *o = json_object_new_object();
	json_object_object_add(o, "rc", json_object_new_int(rc));
	if (c->err)
		json_object_object_add(o, "err", json_object_new_string(c->err));
	json_object_object_add(o, "result", sb_wl_result_to_json(c->res));
	const char *t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	_exit(t && write_all(fd, t, strlen(t)) == 0 ? 0 : 124);
}

/* Reads the child's answer to EOF; a stop (signal, time limit) seen here
 * is passed on to it once. */
static char *read_child(int fd, pid_t pid, volatile sig_atomic_t *stop)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	bool told = false;

	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (*stop && !told) {
			kill(pid, SIGUSR1);
			told = true;
		}
		if (poll(&p, 1, 200) <= 0)
			continue;
		if (len + 65536 + 1 > cap) {
			char *nb = realloc(buf, cap = cap * 2 + 65536 + 1);
			if (!nb)
				break;
			buf = nb;
		}
		ssize_t n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (buf)
		buf[len] = '\0';
	return buf;
}

/* Takes the child's {rc, err, result} into c; rc, or -EIO when it is not
 * there. */
static int take_answer(struct sb_wl_ctx *c, const char *text)
{
	json_object *o = text && *text ? json_tokener_parse(text) : NULL, *v;
	struct sb_wl_result *r = NULL;
	char *why = NULL;
	int rc = -EIO;

	if (o && json_object_object_get_ex(o, "result", &v) &&
	    sb_wl_result_from_json(v, &r, &why) == 0) {
		sb_wl_result_free(c->res);
		c->res = r;
		rc = json_object_object_get_ex(o, "rc", &v) ? json_object_get_int(v) : -EIO;
		if (json_object_object_get_ex(o, "err", &v) &&
		    json_object_is_type(v, json_type_string)) {
			free(c->err);
			c->err = strdup(json_object_get_string(v));
		}
	} else {
		rc = sb_wl_fail(c, -EIO, "the workload's process gave no result%s%s",
				why ? ": " : "", why ? why : "");
	}
	free(why);
	json_object_put(o);
	return rc;
}

static int wait_child(pid_t pid, int *st)
{
	while (waitpid(pid, st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

/* stackbench stays outside the cgroup: an OOM kill under the cap ends the
 * child, and the run goes on to its teardown. */
static int run_in_cgroup(struct sb_wl_ctx *c, const struct sb_memcap *m)
{
	int pfd[2], st = 0, rc;
	sigset_t usr1, old;
	int64_t oom0 = sb_memcap_oom_kills(m);
	pid_t pid, self = getpid();

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return sb_wl_fail(c, -errno, "--cap-cache: pipe");
	/* SIGUSR1 held until the child has its handler. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		capped_child(c, m, pfd[1], self, &old);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		return sb_wl_fail(c, -errno, "--cap-cache: fork");
	}
	_cleanup_free_ char *text = read_child(pfd[0], pid, c->env->stop);
	close(pfd[0]);
	if ((rc = wait_child(pid, &st)) < 0)
		return sb_wl_fail(c, rc, "--cap-cache: waiting for the workload");
	if (WIFSIGNALED(st)) {
		int64_t oom1 = sb_memcap_oom_kills(m);
		if (WTERMSIG(st) == SIGKILL && oom1 > oom0)
			return sb_wl_fail(c, -ENOMEM,
					  "workload killed by the memory cap (%llu bytes)",
					  (unsigned long long)m->bytes);
		return sb_wl_fail(c, -ECHILD, "the workload's process died of signal %d (%s)",
				  WTERMSIG(st), strsignal(WTERMSIG(st)));
	}
	rc = take_answer(c, text);
	/* A program the workload started (fio, a command) was the one the
	 * kernel killed: say so, the program's own failure is that kill. */
	int64_t oom1 = sb_memcap_oom_kills(m);
	if (oom1 > oom0) {
		sb_wl_extra_int(c, "memory_cap_oom_kills", oom1 - oom0);
		if (rc < 0) {
			char *was = c->err;
			c->err = sb_asprintf("workload killed by the memory cap (%llu bytes)%s%s",
					     (unsigned long long)m->bytes, was ? ": " : "",
					     was ? was : "");
			free(was);
			free(c->res->error);
			c->res->error = c->err ? strdup(c->err) : NULL;
		}
	}
	return rc;
}

int sb_wl_run_capped(struct sb_wl_ctx *c, const struct sb_wl_env *env)
{
	struct sb_memcap cap;
	char *why = NULL;
	int rc;

	/* run: the plan's memory-cgroup step made it (journaled); bench: one of
	 * its own for this workload. */
	if (env->memcg)
		rc = sb_memcap_use(&cap, env->memcg, c->ram);
	else
		rc = sb_memcap_open(&cap, c->ram, &why);
	if (rc < 0) {
		rc = sb_wl_fail(c, rc == -EPERM ? -EPERM : -EOPNOTSUPP, "--cap-cache: %s",
				why ? why : strerror(-rc));
		free(why);
		return rc;
	}
	sb_wl_extra_int(c, "memory_cap_bytes", (int64_t)cap.bytes);
	sb_wl_extra_str(c, "memory_cap_cgroup", cap.v2 ? "v2" : "v1");
	rc = run_in_cgroup(c, &cap);
	sb_memcap_close(&cap);
	return rc;
}
