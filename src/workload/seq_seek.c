/* seq's random seeks test: several threads doing lseek + read over the file
 * the block tests left, one in ten written back. */
#include "workload/seq-int.h"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

struct seeker {
	struct seq_run *s;
	struct sb_phase *p;
	uint64_t n, done, written, bad;
	uint64_t live; /* seeks so far, for the series */
	uint64_t rng;
	struct sb_hist h;
	int rc;
};

static void *seeker_main(void *arg)
{
	struct seeker *k = arg;
	struct seq_run *s = k->s;
	char *buf = sb_wl_alloc_aligned(s->chunk);
	int fd = open(s->path, O_RDWR | O_CLOEXEC | (s->direct ? O_DIRECT : 0));
	volatile sig_atomic_t *stop = s->c->env->stop;

	if (!buf || fd < 0) {
		k->rc = buf ? -errno : -ENOMEM;
		goto out;
	}
	for (; k->done < k->n; k->done++) {
		uint64_t b = sb_rng_next(&k->rng) % s->nblocks, off = b * s->chunk;
		bool wr = sb_rng_next(&k->rng) % 10 == 0;
		uint64_t t0 = sb_mono_ns(), t1;
		if (lseek(fd, (off_t)off, SEEK_SET) < 0 ||
		    read(fd, buf, s->chunk) != (ssize_t)s->chunk) {
			k->rc = -EIO;
			break;
		}
		/* Either what rewrite left or what a seeker wrote back. */
		if (sb_data_check(&s->c->data, buf, off, SB_SECTOR, 2) &&
		    sb_data_check(&s->c->data, buf, off, SB_SECTOR, 3))
			k->bad++;
		if (wr) {
			sb_data_fill(&s->c->data, buf, off, s->chunk, 3);
			if (lseek(fd, (off_t)off, SEEK_SET) < 0 ||
			    write(fd, buf, s->chunk) != (ssize_t)s->chunk) {
				k->rc = -EIO;
				break;
			}
			k->written++;
		}
		t1 = sb_mono_ns();
		sb_hist_add(&k->h, t1 - t0);
		__atomic_store_n(&k->live, k->done + 1, __ATOMIC_RELAXED);
		if (t1 >= k->p->deadline || *stop) {
			k->done++;
			if (!*stop)
				__atomic_store_n(&k->p->expired, true, __ATOMIC_RELAXED);
			break;
		}
	}
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	__atomic_fetch_sub(&k->p->running, 1, __ATOMIC_RELEASE);
	return NULL;
}

struct seek_live {
	struct seeker *k;
	unsigned n;
};

static uint64_t seek_live(void *arg)
{
	const struct seek_live *l = arg;
	uint64_t sum = 0;
	for (unsigned i = 0; i < l->n; i++)
		sum += __atomic_load_n(&l->k[i].live, __ATOMIC_RELAXED);
	return sum;
}

int sb_seq_seeks(struct seq_run *s, struct sb_hist *h)
{
	struct sb_wl_ctx *c = s->c;
	unsigned n = (unsigned)seq_o(c->spec)->seekers;
	uint64_t total = seq_o(c->spec)->seeks, done = 0, written = 0;
	struct seeker *k = calloc(n, sizeof(*k));
	pthread_t *th = calloc(n, sizeof(*th));
	struct sb_phase p;
	int rc = 0;

	if (!k || !th) {
		free(k);
		free(th);
		return -ENOMEM;
	}
	sb_phase_begin(c, &p, "seeks", total);
	struct seek_live live = {.k = k, .n = n};
	p.progress = seek_live;
	p.progress_arg = &live;
	p.op_bytes = s->chunk;
	for (unsigned i = 0; i < n; i++) {
		k[i] = (struct seeker){.s = s,
				       .p = &p,
				       .n = total / n + (i < total % n),
				       .rng = 0x2545F4914F6CDD1Dull * (i + 1)};
		sb_hist_init(&k[i].h);
		__atomic_fetch_add(&p.running, 1, __ATOMIC_RELAXED);
		if (pthread_create(&th[i], NULL, seeker_main, &k[i]) != 0) {
			__atomic_fetch_sub(&p.running, 1, __ATOMIC_RELAXED);
			n = i;
			live.n = i;
			rc = sb_wl_fail(c, -EAGAIN, "cannot start seeker threads");
			break;
		}
	}
	sb_phase_sample_threads(&p);
	for (unsigned i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		sb_hist_merge(h, &k[i].h);
		done += k[i].done;
		written += k[i].written;
		s->bad += k[i].bad;
		if (k[i].rc && !rc)
			rc = sb_wl_fail(c, k[i].rc, "%s: seeks", s->path);
	}
	p.rbytes = done * s->chunk;
	p.wbytes = written * s->chunk;
	p.done = done;
	sb_phase_end(&p);
	sb_seq_add_rate(c, "seeks", &p, (double)done, 1, "seeks/s");
	sb_wl_extra_int(c, "seeks_written", (int64_t)written);
	free(k);
	free(th);
	return rc;
}
