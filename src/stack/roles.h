/* Role matching (roles.c): which named device plays which profile role. */
#pragma once

#include "probe/probe.h"
#include "stack/stack.h"

/* assign[k] = index into devs of the device for slots[k]. Returns 0, or
 * -EINVAL with *why saying which role no device fits and why. */
int sb_match_roles(const struct sb_slot *slots, size_t ns, struct sb_device *const *devs, size_t nd,
		   size_t *assign, char **why);
