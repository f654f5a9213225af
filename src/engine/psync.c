/* psync: one pread/pwrite per I/O, done when it is queued; completions wait
 * in a small ring until reaped. Queue depth above 1 only batches the
 * bookkeeping, it never overlaps I/O (use threads= for that, as fio does). */
#include "engine/engine.h"

#include <errno.h>
#include <stdlib.h>

struct psync {
	struct sb_io **ring;
	unsigned head, n;
};

static int psync_probe(char **why)
{
	return 0;
}

static int psync_init(struct sb_engine *e, char **why)
{
	struct psync *p = calloc(1, sizeof(*p));
	if (!p || !(p->ring = calloc(e->cfg.qd, sizeof(*p->ring)))) {
		free(p);
		return -ENOMEM;
	}
	e->priv = p;
	return 0;
}

static int psync_queue(struct sb_engine *e, struct sb_io *io)
{
	struct psync *p = e->priv;
	if (p->n == e->cfg.qd)
		return -EBUSY;
	sb_io_sync(e->cfg.fd, io);
	p->ring[(p->head + p->n++) % e->cfg.qd] = io;
	return 0;
}

static int psync_submit(struct sb_engine *e)
{
	return 0;
}

static int psync_reap(struct sb_engine *e, unsigned min, struct sb_io **done, unsigned max)
{
	struct psync *p = e->priv;
	unsigned k = 0;
	while (k < max && p->n) {
		done[k++] = p->ring[p->head];
		p->head = (p->head + 1) % e->cfg.qd;
		p->n--;
	}
	return (int)k;
}

/* Every I/O is done when queued: there is never anything to wait for. */
static int psync_reap_wait(struct sb_engine *e, uint64_t timeout_ns, struct sb_io **done,
			   unsigned max)
{
	return psync_reap(e, 0, done, max);
}

static void psync_cleanup(struct sb_engine *e)
{
	struct psync *p = e->priv;
	if (p)
		free(p->ring);
	free(p);
	e->priv = NULL;
}

const struct sb_engine_ops sb_engine_psync = {
    .name = "psync",
    .summary = "one pread/pwrite per I/O (queue depth 1 per thread)",
    .probe = psync_probe,
    .init = psync_init,
    .queue = psync_queue,
    .submit = psync_submit,
    .reap = psync_reap,
    .reap_wait = psync_reap_wait,
    .cleanup = psync_cleanup,
};
