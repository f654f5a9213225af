/* A device as JSON for `probe --json` and for result.json: every fact,
 * numbers as numbers, booleans as booleans, unknown as null. */
#include "probe/probe-internal.h"
#include "probe/probe.h"

static json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static json_object *strv_array(char *const *v)
{
	json_object *a = json_object_new_array();
	for (size_t i = 0; a && v && v[i]; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

json_object *sb_device_to_json(const struct sb_device *d)
{
	json_object *o = json_object_new_object(), *sigs, *roles, *refuse;
	const char *rl[8];
	size_t nr;

	if (!o)
		return NULL;
	json_object_object_add(o, "path", str_or_null(d->path));
	json_object_object_add(o, "name", str_or_null(d->name));
	json_object_object_add(o, "major", json_object_new_int64(d->major));
	json_object_object_add(o, "minor", json_object_new_int64(d->minor));
	json_object_object_add(o, "size", json_object_new_uint64(d->size));
	json_object_object_add(o, "logical_sector_size", json_object_new_int64(d->log_sec));
	json_object_object_add(o, "physical_sector_size", json_object_new_int64(d->phys_sec));
	json_object_object_add(o, "model", str_or_null(d->model));
	json_object_object_add(o, "serial", str_or_null(d->serial));
	/* Only when known: the captured probes of devices without one keep
	 * their form. */
	if (d->firmware)
		json_object_object_add(o, "firmware", json_object_new_string(d->firmware));
	json_object_object_add(o, "vendor", str_or_null(d->vendor));
	json_object_object_add(o, "transport", str_or_null(d->transport));
	json_object_object_add(o, "rotational", json_object_new_boolean(d->rotational));
	json_object_object_add(o, "discard", json_object_new_boolean(d->discard));
	json_object_object_add(o, "readonly", json_object_new_boolean(d->readonly));
	json_object_object_add(o, "removable", json_object_new_boolean(d->removable));
	json_object_object_add(o, "partition", json_object_new_boolean(d->is_partition));
	json_object_object_add(o, "partition_number",
			       d->is_partition ? json_object_new_int64(d->partn) : NULL);
	json_object_object_add(o, "start",
			       d->is_partition ? json_object_new_uint64(d->start) : NULL);
	json_object_object_add(o, "parent", str_or_null(d->parent));
	json_object_object_add(o, "scheduler", str_or_null(d->scheduler));
	json_object_object_add(o, "read_ahead_kb", json_object_new_int64(d->read_ahead_kb));
	json_object_object_add(o, "backing_file", str_or_null(d->backing_file));
	/* only for a loop over a block device: older readers see no change */
	if (d->has_lower) {
		json_object *l = json_object_new_object();
		json_object_object_add(l, "major", json_object_new_int64(d->lower_major));
		json_object_object_add(l, "minor", json_object_new_int64(d->lower_minor));
		json_object_object_add(o, "backing_device", l);
	}
	json_object_object_add(o, "device_node", json_object_new_boolean(d->has_node));
	json_object_object_add(o, "holders", strv_array(d->holders));
	json_object_object_add(o, "mountpoints", strv_array(d->mounts));
	json_object_object_add(o, "swap", json_object_new_boolean(d->swap));
	json_object_object_add(o, "holds_root", json_object_new_boolean(d->holds_root));

	sigs = d->sigs_err ? NULL : json_object_new_array();
	for (size_t i = 0; sigs && i < d->n_sigs; i++) {
		json_object *s = json_object_new_object();
		json_object_object_add(s, "type", str_or_null(d->sigs[i].type));
		json_object_object_add(s, "usage", str_or_null(d->sigs[i].usage));
		json_object_object_add(s, "label", str_or_null(d->sigs[i].label));
		json_object_object_add(s, "uuid", str_or_null(d->sigs[i].uuid));
		json_object_object_add(s, "offset", json_object_new_uint64(d->sigs[i].offset));
		json_object_array_add(sigs, s);
	}
	/* null, not [], when they could not be read: "none" and "unknown" differ */
	json_object_object_add(o, "signatures", sigs);
	json_object_object_add(o, "class", json_object_new_string(sb_class_name(d->cls)));
	roles = json_object_new_array();
	nr = sb_device_roles(d, rl, 8);
	for (size_t i = 0; roles && i < nr; i++)
		json_object_array_add(roles, json_object_new_string(rl[i]));
	json_object_object_add(o, "roles", roles);
	json_object_object_add(o, "verdict",
			       json_object_new_string(d->refuse ? "refused" : "usable"));
	refuse = json_object_new_array();
	for (unsigned b = 1; refuse && b && b <= SB_REFUSE_UNPROBED; b <<= 1)
		if ((d->refuse & b) && sb_refuse_name(b))
			json_object_array_add(refuse, json_object_new_string(sb_refuse_name(b)));
	json_object_object_add(o, "refuse", refuse);
	json_object_object_add(o, "reasons", strv_array(d->reasons));
	json_object_object_add(o, "note", str_or_null(d->note));
	return o;
}
