/* The layer registry and what is read from it (key tables, captures, a plan's
 * programs), the executor's context and the JSON helpers of step results.
 *
 * The executor (exec_run.c, exec_undo.c): runs a plan step by step with a
 * journal record before and after each, or lists it (dry-run) through the
 * same loop; undoes from the journal alone. Before a step writes a device it
 * proves that nobody else holds it (an O_EXCL open) and journals who the
 * device is; undo acts only on what still is that device. */
#include "stack/capture.h"
#include "stack/scenario.h"
#include "stack/stack.h"
#include "util/macro.h"
#include "util/spawn.h"

#include <stdarg.h>
#include <string.h>

/* The registry: the order is the enum's. */
static const struct sb_layer *const layers[SB_STEP_KIND_N] = {
    [SB_STEP_LOOP] = &sb_layer_loop,	   [SB_STEP_QUEUE] = &sb_layer_queue,
    [SB_STEP_PRECOND] = &sb_layer_precond, [SB_STEP_PART] = &sb_layer_part,
    [SB_STEP_MD] = &sb_layer_md,	   [SB_STEP_BCACHE] = &sb_layer_bcache,
    [SB_STEP_PV] = &sb_layer_pv,	   [SB_STEP_VG] = &sb_layer_vg,
    [SB_STEP_LV] = &sb_layer_lv,	   [SB_STEP_LVC_VGEXTEND] = &sb_layer_lvc_vgextend,
    [SB_STEP_LVC_LV] = &sb_layer_lvc_lv,   [SB_STEP_LVC_CONVERT] = &sb_layer_lvc_convert,
    [SB_STEP_MKFS] = &sb_layer_mkfs,	   [SB_STEP_MOUNT] = &sb_layer_mount,
    [SB_STEP_MEMCG] = &sb_layer_memcg,	   [SB_STEP_SCEN] = &sb_layer_scen,
};

/* Before main: the profile parser knows the layers' keys from here alone,
 * without profile/ reaching up into stack/. */
__attribute__((constructor)) static void keytabs_register(void)
{
	for (size_t k = 0; k < SB_STEP_KIND_N; k++)
		if (layers[k]->keytab)
			sb_keytab_register(layers[k]->keytab);
}

/* The order of the captures in extra.config and of the rows the report
 * lists: the mounted file system (its options, then its geometry), the
 * layers in the registry's order, every device's queue last. */
static const enum sb_step_kind capture_order[] = {
    SB_STEP_MOUNT,	 SB_STEP_MKFS,	SB_STEP_LOOP,	      SB_STEP_PRECOND,
    SB_STEP_PART,	 SB_STEP_MD,	SB_STEP_BCACHE,	      SB_STEP_PV,
    SB_STEP_VG,		 SB_STEP_LV,	SB_STEP_LVC_VGEXTEND, SB_STEP_LVC_LV,
    SB_STEP_LVC_CONVERT, SB_STEP_MEMCG, SB_STEP_SCEN,	      SB_STEP_QUEUE,
};
_Static_assert(ARRAY_SIZE(capture_order) == SB_STEP_KIND_N, "every layer has its place");

size_t sb_layer_captures(const struct sb_capture **out, size_t max)
{
	size_t n = 0;
	for (size_t k = 0; k < ARRAY_SIZE(capture_order); k++)
		if (layers[capture_order[k]]->capture && n < max)
			out[n++] = layers[capture_order[k]]->capture;
	return n;
}

const struct sb_layer *sb_layer_get(enum sb_step_kind k)
{
	return k < SB_STEP_KIND_N ? layers[k] : NULL;
}

const struct sb_layer *sb_layer_by_name(const char *kind)
{
	for (int i = 0; i < SB_STEP_KIND_N; i++)
		if (strcmp(layers[i]->kind, kind) == 0)
			return layers[i];
	return NULL;
}

void *sb_layer_args_new(const struct sb_layer *l)
{
	return calloc(1, l->args_size);
}

void sb_layer_args_free(const struct sb_layer *l, void *args)
{
	if (!args)
		return;
	sb_fields_free(l->fields, l->n_fields, args);
	free(args);
}

void sb_exec_init(struct sb_exec *x)
{
	*x = (struct sb_exec){.log_fd = -1, .out = stdout};
	x->vars = json_object_new_object();
}

void sb_exec_release(struct sb_exec *x)
{
	json_object_put(x->vars);
	free(x->errmsg);
	x->vars = NULL;
	x->errmsg = NULL;
}

void sb_exec_set_var(struct sb_exec *x, const char *name, const char *value)
{
	json_object_object_add(x->vars, name, json_object_new_string(value));
}

const char *sb_exec_var(struct sb_exec *x, const char *name)
{
	json_object *v;
	return json_object_object_get_ex(x->vars, name, &v) ? json_object_get_string(v) : NULL;
}

char *sb_exec_expand(struct sb_exec *x, const char *s)
{
	return sb_subst(s, x->vars);
}

int sb_exec_fail(struct sb_exec *x, int r, const char *fmt, ...)
{
	va_list ap;
	char *m;
	va_start(ap, fmt);
	if (vasprintf(&m, fmt, ap) < 0)
		m = NULL;
	va_end(ap);
	free(x->errmsg);
	x->errmsg = m;
	return r;
}

void sb_exec_log(struct sb_exec *x, const char *fmt, ...)
{
	va_list ap;
	if (x->log_fd < 0)
		return;
	va_start(ap, fmt);
	vdprintf(x->log_fd, fmt, ap);
	va_end(ap);
}

/* The Debian package of a program, from the layers that run it. */
const char *sb_program_package(const char *prog)
{
	for (int i = 0; i < SB_STEP_KIND_N; i++)
		for (const struct sb_prog *p = layers[i]->progs; p && p->prog; p++)
			if (strcmp(p->prog, prog) == 0)
				return p->package;
	return NULL;
}

static const struct sb_prog *step_programs(const struct sb_step *s)
{
	const struct sb_layer *l = sb_layer_get(s->kind);
	return l->programs ? l->programs(s->args) : l->progs;
}

int sb_plan_check(const struct sb_plan *p, char ***msgs)
{
	char **m = NULL;
	size_t n = 0;
	const char *seen[64];
	size_t n_seen = 0;

#define PUSH(...)                                                                                  \
	do {                                                                                       \
		char **_nm = realloc(m, (n + 2) * sizeof(*m));                                     \
		if (!_nm || asprintf(&_nm[n], __VA_ARGS__) < 0)                                    \
			abort();                                                                   \
		m = _nm;                                                                           \
		m[++n] = NULL;                                                                     \
	} while (0)
	for (size_t i = 0; i < p->n; i++) {
		const struct sb_layer *l = sb_layer_get(p->steps[i].kind);
		const struct sb_prog *pr = step_programs(&p->steps[i]);
		const char *why = l->preflight ? l->preflight(p->steps[i].args) : NULL;
		bool dup = false;
		/* Compared by text, and the copy kept: a message may live in its
		 * layer's static buffer (queue names the scheduler). */
		if (why) {
			for (size_t k = 0; k < n_seen; k++)
				dup |= strcmp(seen[k], why) == 0;
			if (!dup && n_seen < ARRAY_SIZE(seen)) {
				PUSH("%s", why);
				seen[n_seen++] = m[n - 1];
			}
		}
		for (; pr && pr->prog; pr++) {
			dup = false;
			for (size_t k = 0; k < n_seen; k++)
				dup |= strcmp(seen[k], pr->prog) == 0;
			if (dup || sb_have_program(pr->prog))
				continue;
			if (n_seen < ARRAY_SIZE(seen))
				seen[n_seen++] = pr->prog;
			PUSH("%s: not found (install the Debian package %s)", pr->prog,
			     pr->package);
		}
	}
#undef PUSH
	*msgs = m;
	return (int)n;
}

/* ---- small JSON helpers for results ---- */

const char *sb_json_str(json_object *o, const char *key)
{
	json_object *v;
	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

int64_t sb_json_i64(json_object *o, const char *key, int64_t def)
{
	json_object *v;
	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return def;
	return json_object_get_int64(v);
}

void sb_result_var(json_object *result, const char *name, const char *value)
{
	json_object *vars;
	if (!json_object_object_get_ex(result, "vars", &vars)) {
		vars = json_object_new_object();
		json_object_object_add(result, "vars", vars);
	}
	json_object_object_add(vars, name, json_object_new_string(value));
}
