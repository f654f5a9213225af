/* The profile's values resolved once into a typed stack configuration:
 * levels and file systems as enums, sizes as numbers, role lists as bit
 * sets, mkfs words split. The plan reads only this, so that no level string
 * or "${" test is compared in several places. Pure. */
#include "stack/stack.h"
#include "util/macro.h"
#include "util/size.h"

#include <stdarg.h>
#include <string.h>

const char *const sb_precond_names[SB_PRECOND_N] = {
    [SB_PRECOND_NONE] = "none", [SB_PRECOND_TRIM] = "trim", [SB_PRECOND_STEADY] = "steady"};

static int cerr(char **err, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int cerr(char **err, int r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (err && vasprintf(err, fmt, ap) < 0)
		*err = NULL;
	va_end(ap);
	return r;
}

int sb_stack_cfg_resolve(const struct sb_config *c, struct sb_stack_cfg *s, char **err)
{
	const char *v;

	*s = (struct sb_stack_cfg){0};
	if (err)
		*err = NULL;
	for (int k = 0; k < SB_ROLE_N; k++)
		s->dev.loop_size[k] = sb_cfg_u64(c, (enum sb_key_id)(K_DEV_LOOP_SSD + k));
	s->dev.loop_quick = sb_cfg_u64(c, K_DEV_LOOP_QUICK);
	s->dev.emulate_raid6 = strcmp(sb_cfg_str(c, K_DEV_LOOP_EMULATE), "raid6") == 0;
	s->dev.emulate_members = (unsigned)sb_cfg_u64(c, K_DEV_LOOP_EMULATE_MEMBERS);
	v = sb_cfg_str(c, K_DEV_PRECONDITION);
	for (int k = 0; v && k < SB_PRECOND_N; k++)
		if (strcmp(v, sb_precond_names[k]) == 0)
			s->dev.precond = (enum sb_precond)k;
	s->dev.precond_limit_ms = sb_cfg_u64(c, K_DEV_PRECONDITION_LIMIT);
	if (s->dev.emulate_raid6 && (s->dev.emulate_members < 4 || s->dev.emulate_members > 16))
		return cerr(err, -EINVAL, "devices.loop.emulate-members: %s",
			    "RAID6 emulation needs 4 to 16 members");

	s->queue.scheduler = c->val[K_QUEUE_SCHEDULER];
	if (c->val[K_QUEUE_READ_AHEAD]) {
		s->queue.read_ahead = true;
		s->queue.read_ahead_kb = sb_cfg_u64(c, K_QUEUE_READ_AHEAD);
	}
	return 0;
}

void sb_stack_cfg_free(struct sb_stack_cfg *s)
{
	(void)s;
}
