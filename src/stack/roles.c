/* Matching the devices a user names to the roles a profile needs: in the
 * given order when every device fits its role, otherwise by class (an SSD
 * passed last still becomes the "ssd"), as a bipartite matching (exact
 * classes first, then any device that fits). Pure: works on probed facts. */
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

/* One augmenting path from slot k (Kuhn's algorithm): a free device that
 * fits, or one whose slot can move to another device. owner[d] is the slot
 * holding device d, or ns when free. O(slots * edges) in all, so 64
 * devices match at once where the old backtracking took factorial time. */
static bool augment(const struct sb_slot *slots, size_t ns, struct sb_device *const *devs,
		    size_t nd, size_t k, bool *seen, size_t *owner, bool strict)
{
	for (size_t d = 0; d < nd; d++) {
		if (seen[d] || !fits(devs[d], slots[k].role, strict))
			continue;
		seen[d] = true;
		if (owner[d] == ns || augment(slots, ns, devs, nd, owner[d], seen, owner, strict)) {
			owner[d] = k;
			return true;
		}
	}
	return false;
}

/* A matching that gives every slot a device, or false. */
static bool match(const struct sb_slot *slots, size_t ns, struct sb_device *const *devs, size_t nd,
		  size_t *assign, bool strict)
{
	size_t owner[nd + 1];
	bool seen[nd + 1];

	for (size_t d = 0; d < nd; d++)
		owner[d] = ns;
	for (size_t k = 0; k < ns; k++) {
		memset(seen, 0, sizeof(seen));
		if (!augment(slots, ns, devs, nd, k, seen, owner, strict))
			return false;
	}
	for (size_t d = 0; d < nd; d++)
		if (owner[d] < ns)
			assign[owner[d]] = d;
	/* Slots of one role are interchangeable: give them their devices in
	 * the order given (hdd1 the first HDD named), whatever path found them. */
	for (size_t k = 0; k < ns; k++)
		for (size_t j = k + 1; j < ns; j++)
			if (slots[j].role == slots[k].role && assign[j] < assign[k]) {
				size_t t = assign[j];
				assign[j] = assign[k];
				assign[k] = t;
			}
	return true;
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
	bool in_order = nd == ns;
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
	if (match(slots, ns, devs, nd, assign, true) || match(slots, ns, devs, nd, assign, false))
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
