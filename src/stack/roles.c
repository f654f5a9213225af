/* Matching the devices a user names to the roles a profile needs: in the
 * given order when every device fits its role, otherwise by class (an SSD
 * passed last still becomes the "ssd"). Pure: works on probed facts. */
#include "stack/roles.h"
#include "util/macro.h"

#include <stdio.h>
#include <string.h>

/* strict: the class must be the role itself (an SSD for "ssd", not an
 * NVMe device that would also do), tried before any device that fits. */
static bool fits(const struct sb_device *d, enum sb_role r, bool strict)
{
	static const enum sb_class exact[SB_ROLE_N] = {[SB_ROLE_SSD] = SB_CLASS_SSD,
						       [SB_ROLE_HDD] = SB_CLASS_HDD,
						       [SB_ROLE_NVME] = SB_CLASS_NVME};
	if (!sb_device_fits_role(d, sb_role_names[r]))
		return false;
	return !strict || r == SB_ROLE_ANY || d->cls == exact[r];
}

static bool search(const struct sb_slot *slots, size_t ns, struct sb_device *const *devs, size_t nd,
		   size_t k, bool *used, size_t *assign, bool strict)
{
	if (k == ns)
		return true;
	for (size_t d = 0; d < nd; d++) {
		if (used[d] || !fits(devs[d], slots[k].role, strict))
			continue;
		used[d] = true;
		assign[k] = d;
		if (search(slots, ns, devs, nd, k + 1, used, assign, strict))
			return true;
		used[d] = false;
	}
	return false;
}

static const char *kind_of(const struct sb_device *d)
{
	if (d->cls == SB_CLASS_LOOP || d->cls == SB_CLASS_VIRTUAL)
		return d->rotational ? "rotational" : "non-rotational";
	return sb_class_name(d->cls);
}

int sb_match_roles(const struct sb_slot *slots, size_t ns, struct sb_device *const *devs, size_t nd,
		   size_t *assign, char **why)
{
	bool used[nd + 1], in_order = nd == ns;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	*why = NULL;
	if (nd < ns) {
		if (asprintf(why, "the profile needs %zu devices, %zu given", ns, nd) < 0)
			*why = NULL;
		return -EINVAL;
	}
	for (size_t k = 0; in_order && k < ns; k++)
		in_order = sb_device_fits_role(devs[k], sb_role_names[slots[k].role]);
	if (in_order) {
		for (size_t k = 0; k < ns; k++)
			assign[k] = k;
		return 0;
	}
	memset(used, 0, sizeof(used));
	if (search(slots, ns, devs, nd, 0, used, assign, true))
		return 0;
	memset(used, 0, sizeof(used));
	if (search(slots, ns, devs, nd, 0, used, assign, false))
		return 0;

	/* Say which roles no device can play, with each device's kind. */
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	for (int r = 0; r < SB_ROLE_N; r++) {
		size_t need = 0, fit = 0;
		for (size_t k = 0; k < ns; k++)
			need += slots[k].role == (enum sb_role)r;
		for (size_t d = 0; d < nd; d++)
			fit += sb_device_fits_role(devs[d], sb_role_names[r]);
		if (need > fit)
			fprintf(f, "%srole '%s' needs %zu device%s, %zu fit%s",
				len || ftell(f) ? "; " : "", sb_role_names[r], need,
				need == 1 ? "" : "s", fit, fit == 1 ? "s" : "");
	}
	if (ftell(f) == 0)
		fprintf(f, "the devices cannot be matched to the roles");
	fprintf(f, " (");
	for (size_t d = 0; d < nd; d++)
		fprintf(f, "%s%s is %s", d ? ", " : "", devs[d]->path, kind_of(devs[d]));
	fprintf(f, ")");
	fclose(f);
	*why = buf;
	return -EINVAL;
}
