/* io_uring via liburing: up to qd I/Os in flight per ring, one ring per
 * thread. Set up as fio's engine and t/io_uring do it: single issuer with
 * deferred task work where the kernel has it (fewer wake-ups), optional
 * registered buffers and file, batched submit and reap (one io_uring_enter
 * for many I/Os), completion polling on request. The CPU of io-wq workers
 * and the SQPOLL thread is the process's own (they are threads of it), so
 * the workloads' rusage includes it. */
#include "engine/engine.h"
#include "util/strutil.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

struct uring {
	struct io_uring ring;
	unsigned queued; /* prepared, not yet submitted */
	bool defer;	 /* DEFER_TASKRUN: completions appear only after an enter */
	bool fixed_file;
};

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int uring_probe(char **why)
{
	struct io_uring ring;
	char v[16] = "";
	int r;

	if (read_line("/proc/sys/kernel/io_uring_disabled", v, sizeof(v)) == 0 &&
	    strcmp(v, "2") == 0) {
		*why = strdup("io_uring is disabled on this system "
			      "(/proc/sys/kernel/io_uring_disabled is 2); use engine=psync");
		return -EPERM;
	}
	r = io_uring_queue_init(2, &ring, 0);
	if (r < 0) {
		*why =
		    sb_asprintf("io_uring is not available: %s%s; use engine=psync", strerror(-r),
				r == -ENOSYS  ? " (kernel built without it)"
				: r == -EPERM ? " (/proc/sys/kernel/io_uring_disabled)"
					      : "");
		return r;
	}
	io_uring_queue_exit(&ring);
	return 0;
}

/* Completion polling needs O_DIRECT and a device with poll queues. */
static int check_hipri(int fd, char **why)
{
	struct stat st;
	char path[128], v[16] = "";
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || !(fl & O_DIRECT)) {
		*why = strdup("hipri=1 (completion polling) needs direct=1");
		return -EINVAL;
	}
	if (fstat(fd, &st) < 0)
		return -errno;
	dev_t d = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/io_poll", major(d), minor(d));
	if (read_line(path, v, sizeof(v)) < 0) {
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../queue/io_poll", major(d),
			 minor(d));
		read_line(path, v, sizeof(v));
	}
	if (strcmp(v, "1") != 0) {
		*why = sb_asprintf("hipri=1: device %u:%u has no poll queues (queue/io_poll is "
				   "%s; for NVMe set nvme.poll_queues=N)",
				   major(d), minor(d), v[0] ? v : "absent");
		return -EOPNOTSUPP;
	}
	return 0;
}

static int setup_ring(struct sb_engine *e, struct uring *u)
{
	struct io_uring_params p;
	unsigned base = 0;
	int r;

	if (e->cfg.hipri)
		base |= IORING_SETUP_IOPOLL;
	if (e->cfg.sqpoll)
		base |= IORING_SETUP_SQPOLL;
	/* Newest setup first, then what older kernels take. */
	const unsigned extra[] = {
	    e->cfg.sqpoll ? 0 : IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
	    e->cfg.sqpoll ? 0 : IORING_SETUP_COOP_TASKRUN,
	    0,
	};
	for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
		memset(&p, 0, sizeof(p));
		p.flags = base | extra[i];
		if (e->cfg.sqpoll)
			p.sq_thread_idle = 1000;
		r = io_uring_queue_init_params(e->cfg.qd, &u->ring, &p);
		if (r == 0) {
			u->defer = extra[i] & IORING_SETUP_DEFER_TASKRUN;
			return 0;
		}
		if (r != -EINVAL)
			break;
	}
	return r;
}

static int uring_init(struct sb_engine *e, char **why)
{
	struct uring *u = calloc(1, sizeof(*u));
	int r;

	if (!u)
		return -ENOMEM;
	if (e->cfg.hipri && (r = check_hipri(e->cfg.fd, why)) < 0)
		goto fail;
	r = setup_ring(e, u);
	if (r < 0) {
		*why = sb_asprintf("io_uring setup with %u entries failed: %s", e->cfg.qd,
				   strerror(-r));
		goto fail;
	}
	/* The ring's own fd registered too (5.18+), as t/io_uring does: each
	 * io_uring_enter then skips looking the ring up in the file table.
	 * An older kernel refuses it, and that costs only the lookup. */
	io_uring_register_ring_fd(&u->ring);
	if (e->cfg.fixed_bufs) {
		struct iovec *iov = calloc(e->cfg.n_bufs, sizeof(*iov));
		if (!iov) {
			r = -ENOMEM;
			goto fail_ring;
		}
		for (size_t i = 0; i < e->cfg.n_bufs; i++)
			iov[i] = (struct iovec){e->cfg.bufs[i], e->cfg.buf_len};
		r = io_uring_register_buffers(&u->ring, iov, (unsigned)e->cfg.n_bufs);
		free(iov);
		if (r < 0) {
			struct rlimit rl = {0, 0};
			getrlimit(RLIMIT_MEMLOCK, &rl);
			*why = sb_asprintf(
			    "registering %zu KiB of I/O buffers failed: %s (RLIMIT_MEMLOCK is %llu "
			    "KiB: raise it with ulimit -l, or use fixed_bufs=0)",
			    e->cfg.n_bufs * e->cfg.buf_len / 1024, strerror(-r),
			    rl.rlim_cur == RLIM_INFINITY ? 0ull
							 : (unsigned long long)rl.rlim_cur / 1024);
			goto fail_ring;
		}
	}
	if (e->cfg.fixed_files) {
		r = io_uring_register_files(&u->ring, &e->cfg.fd, 1);
		if (r < 0) {
			*why = sb_asprintf("registering the file failed: %s", strerror(-r));
			goto fail_ring;
		}
		u->fixed_file = true;
	}
	e->priv = u;
	return 0;
fail_ring:
	io_uring_queue_exit(&u->ring);
fail:
	free(u);
	return r;
}

/* Prepares the rest of io (from io->done) as one SQE. */
static int prep(struct sb_engine *e, struct uring *u, struct sb_io *io)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
	if (!sqe) {
		int r = io_uring_submit(&u->ring);
		if (r < 0)
			return r;
		u->queued = 0;
		if (!(sqe = io_uring_get_sqe(&u->ring)))
			return -EBUSY;
	}
	void *p = (char *)io->buf + io->done;
	unsigned n = io->len - io->done;
	uint64_t off = io->off + io->done;
	int fd = u->fixed_file ? 0 : e->cfg.fd;

	if (e->cfg.fixed_bufs) {
		if (io->op == SB_IO_READ)
			io_uring_prep_read_fixed(sqe, fd, p, n, off, io->buf_index);
		else
			io_uring_prep_write_fixed(sqe, fd, p, n, off, io->buf_index);
	} else if (io->op == SB_IO_READ) {
		io_uring_prep_read(sqe, fd, p, n, off);
	} else {
		io_uring_prep_write(sqe, fd, p, n, off);
	}
	if (u->fixed_file)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data(sqe, io);
	u->queued++;
	return 0;
}

static int uring_submit(struct sb_engine *e)
{
	struct uring *u = e->priv;
	if (!u->queued)
		return 0;
	int r = io_uring_submit(&u->ring);
	if (r < 0)
		return r;
	u->queued = 0;
	return 0;
}

/* Only a batch smaller than the queue is submitted here; otherwise what is
 * queued goes out with the next submit or reap (all refills of a batch in
 * one io_uring_enter). */
static int uring_queue(struct sb_engine *e, struct sb_io *io)
{
	struct uring *u = e->priv;
	int r = prep(e, u, io);
	if (r == 0 && e->cfg.batch_submit < e->cfg.qd && u->queued >= e->cfg.batch_submit)
		r = uring_submit(e);
	return r;
}

static int uring_reap(struct sb_engine *e, unsigned min, struct sb_io **done, unsigned max)
{
	struct uring *u = e->priv;
	unsigned k = 0;
	bool got_events = false;

	if (max > e->cfg.batch_complete)
		max = e->cfg.batch_complete;
	if (min > max)
		min = max;
	for (;;) {
		struct io_uring_cqe *cqe;
		unsigned head, seen = 0;

		io_uring_for_each_cqe(&u->ring, head, cqe)
		{
			if (k == max)
				break;
			struct sb_io *io = io_uring_cqe_get_data(cqe);
			int res = cqe->res;
			seen++;
			if (res == -EAGAIN || res == -EINTR ||
			    (res > 0 && io->done + (unsigned)res < io->len)) {
				/* Retry, or go on after a short transfer. */
				if (res > 0)
					io->done += (unsigned)res;
				int r = prep(e, u, io);
				if (r < 0) {
					sb_io_sync(e->cfg.fd, io);
					done[k++] = io;
				}
				continue;
			}
			io->res = res < 0 ? res : (int)(io->done + (unsigned)res);
			done[k++] = io;
		}
		io_uring_cq_advance(&u->ring, seen);
		if (k >= max || (k >= min && (seen || got_events || !u->defer)) || e->inflight <= k)
			break;
		if (k >= min) {
			/* Deferred task work: run it once to see what is done. */
			io_uring_get_events(&u->ring);
			got_events = true;
			continue;
		}
		/* Submit, then wait, in two calls as fio does: measured on loop
		 * devices (6.18, over tmpfs and over a disk file), one call that
		 * submits and waits is 2-5x slower at qd=1. */
		int r = uring_submit(e);
		if (r == 0)
			r = io_uring_submit_and_wait(&u->ring, 1);
		if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY)
			return k ? (int)k : r;
	}
	if (u->queued) {
		int r = uring_submit(e);
		if (r < 0 && !k)
			return r;
	}
	return (int)k;
}

static int uring_reap_wait(struct sb_engine *e, uint64_t timeout_ns, struct sb_io **done,
			   unsigned max)
{
	struct uring *u = e->priv;

	/* Completions already in the ring, or nothing to wait for: no wait. */
	if (io_uring_cq_ready(&u->ring) || !e->inflight || !timeout_ns)
		return uring_reap(e, 0, done, max);
	/* Wait for one completion or the timeout (-ETIME), whichever is first. */
	struct __kernel_timespec ts = {.tv_sec = (long long)(timeout_ns / 1000000000u),
				       .tv_nsec = (long long)(timeout_ns % 1000000000u)};
	struct io_uring_cqe *cqe;
	int r = uring_submit(e); /* apart from the wait: see uring_reap */
	if (r == 0)
		r = io_uring_submit_and_wait_timeout(&u->ring, &cqe, 1, &ts, NULL);
	if (r < 0 && r != -ETIME && r != -EINTR && r != -EAGAIN && r != -EBUSY)
		return r;
	u->queued = 0;
	return uring_reap(e, 0, done, max);
}

static void uring_cleanup(struct sb_engine *e)
{
	struct uring *u = e->priv;
	if (!u)
		return;
	io_uring_queue_exit(&u->ring);
	free(u);
	e->priv = NULL;
}

const struct sb_engine_ops sb_engine_io_uring = {
    .name = "io_uring",
    .summary = "io_uring: qd I/Os in flight, batched submit and reap, optional registered "
	       "buffers and file, completion polling (hipri) and SQPOLL",
    .probe = uring_probe,
    .init = uring_init,
    .queue = uring_queue,
    .submit = uring_submit,
    .reap = uring_reap,
    .reap_wait = uring_reap_wait,
    .cleanup = uring_cleanup,
};
