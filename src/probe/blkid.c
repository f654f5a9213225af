/* Signatures on a device through libblkid's low-level probe, read-only,
 * listing every one the way `wipefs --no-act` does (not just the first). */
#include "probe/probe-internal.h"
#include "util/macro.h"

#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>

/* libblkid returns 0 (found), 1 (nothing more), -2 (ambivalent) or -1 with
 * errno maybe set: one place turns that into 0 / 1 / -errno. */
static int blkid_rc(int rc)
{
	if (rc == 0 || rc == 1)
		return rc;
	if (rc == -2)
		return -EUCLEAN; /* several conflicting signatures */
	return errno > 0 ? -errno : -EIO;
}

static void blkid_probe_freep(blkid_probe *pr)
{
	if (*pr)
		blkid_free_probe(*pr);
}

static void sig_clear(struct sb_signature *s)
{
	free(s->type);
	free(s->usage);
	free(s->label);
	free(s->uuid);
}

void sb_signatures_free(struct sb_signature *sigs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sig_clear(&sigs[i]);
	free(sigs);
}

static char *value(blkid_probe pr, const char *name)
{
	const char *v;
	if (blkid_probe_lookup_value(pr, name, &v, NULL) != 0 || !*v)
		return NULL;
	return strdup(v);
}

/* One result of blkid_do_probe() into sig, and the length of its magic
 * string in *len; 1 when it carried nothing usable. */
static int take_result(blkid_probe pr, struct sb_signature *sig, size_t *len)
{
	_cleanup_free_ char *off = NULL;
	const char *magic;
	bool table = false;

	memset(sig, 0, sizeof(*sig));
	sig->type = value(pr, "TYPE");
	if (!sig->type) {
		sig->type = value(pr, "PTTYPE");
		table = true;
	}
	if (!sig->type)
		return 1;
	if (table) {
		sig->usage = strdup("partition table");
		sig->uuid = value(pr, "PTUUID");
		off = value(pr, "PTMAGIC_OFFSET");
		if (blkid_probe_lookup_value(pr, "PTMAGIC", &magic, len) != 0)
			*len = 0;
	} else {
		sig->usage = value(pr, "USAGE");
		sig->label = value(pr, "LABEL");
		sig->uuid = value(pr, "UUID");
		off = value(pr, "SBMAGIC_OFFSET");
		if (blkid_probe_lookup_value(pr, "SBMAGIC", &magic, len) != 0)
			*len = 0;
	}
	if (off)
		sig->offset = strtoull(off, NULL, 10);
	return 0;
}

int sb_blkid_signatures(const char *path, uint64_t offset, uint64_t size, struct sb_signature **out,
			size_t *n_out)
{
	_cleanup_(blkid_probe_freep) blkid_probe pr = NULL;
	_cleanup_close_ int fd = -1;
	struct sb_signature *sigs = NULL;
	size_t n = 0;
	int r;

	*out = NULL;
	*n_out = 0;
	/* Our own read-only fd (not blkid_new_probe_from_filename) so that a
	 * partition without a /dev node can be probed as a window of its
	 * parent, and so that the open's errno is ours to report. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return negerrno();
	pr = blkid_new_probe();
	if (!pr)
		return -ENOMEM;
	errno = 0;
	r = blkid_rc(blkid_probe_set_device(pr, fd, offset, size));
	if (r < 0)
		return r;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE |
						  BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID |
						  BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_BADCSUM);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC | BLKID_PARTS_FORCE_GPT);

	/* As wipefs does: after each hit, hide its magic and step back, so that
	 * the same prober finds further magics (backup GPT, PMBR...) before the
	 * next prober runs. The cap guards against a library that would not
	 * advance. */
	for (int guard = 0; guard < 64; guard++) {
		struct sb_signature s, *ns;
		size_t len = 0;
		bool seen = false;

		errno = 0;
		r = blkid_rc(blkid_do_probe(pr));
		if (r == 1)
			break;
		if (r < 0)
			goto fail;
		if (take_result(pr, &s, &len) == 1)
			continue;
		if (len) {
			blkid_probe_hide_range(pr, s.offset, len);
			blkid_probe_step_back(pr);
		}
		for (size_t i = 0; i < n; i++)
			seen |= sigs[i].offset == s.offset && strcmp(sigs[i].type, s.type) == 0;
		if (seen) {
			sig_clear(&s);
			continue;
		}
		ns = realloc(sigs, (n + 1) * sizeof(*sigs));
		if (!ns) {
			sig_clear(&s);
			r = -ENOMEM;
			goto fail;
		}
		sigs = ns;
		sigs[n++] = s;
	}
	*out = sigs;
	*n_out = n;
	return 0;
fail:
	sb_signatures_free(sigs, n);
	return r;
}
