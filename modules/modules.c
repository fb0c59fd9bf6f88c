/*
 * THE module table, sorted by name (a unit test checks it), and the typed
 * parameter checks every module shares.
 */
#include "../engine/deploy/module.h"

#include <stdio.h>
#include <string.h>

extern const struct stage_module mod_gpu_driver;
extern const struct stage_module mod_kube_node;
extern const struct stage_module mod_memlock;
extern const struct stage_module mod_nouveau;
extern const struct stage_module mod_ofed;
extern const struct stage_module mod_openshift;
extern const struct stage_module mod_peermem;
extern const struct stage_module mod_scale_cluster;
extern const struct stage_module mod_scale_install;
extern const struct stage_module mod_scale_node;
extern const struct stage_module mod_scale_rdma;
extern const struct stage_module mod_scale_remote_mount;
extern const struct stage_module mod_scale_tune;
extern const struct stage_module mod_selinux_ib;
extern const struct stage_module mod_subnet_manager;
extern const struct stage_module mod_validate;

const struct stage_module *const stage_modules[] = {
	&mod_gpu_driver,
	&mod_kube_node,
	&mod_memlock,
	&mod_nouveau,
	&mod_ofed,
	&mod_openshift,
	&mod_peermem,
	&mod_scale_cluster,
	&mod_scale_install,
	&mod_scale_node,
	&mod_scale_rdma,
	&mod_scale_remote_mount,
	&mod_scale_tune,
	&mod_selinux_ib,
	&mod_subnet_manager,
	&mod_validate,
};

const size_t stage_nmodules = sizeof(stage_modules) / sizeof(stage_modules[0]);

const struct stage_module *stage_module_find(const char *name)
{
	for (size_t i = 0; i < stage_nmodules; i++)
		if (!strcmp(stage_modules[i]->name, name))
			return stage_modules[i];
	return NULL;
}

const struct param_spec *module_param(const struct stage_module *m, const char *name)
{
	for (const struct param_spec *p = m->params; p && p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

const char *param_check(const struct param_spec *p, const json_t *v)
{
	switch (p->type) {
	case PARAM_BOOL:
		return json_is_boolean(v) ? NULL : "true or false";
	case PARAM_UINT:
		return json_is_integer(v) && json_integer_value(v) >= 0 ? NULL :
		       "a whole number (0 or more)";
	case PARAM_STRING:
		if (!json_is_string(v) && !json_is_integer(v))
			return "a string";
		if (p->valid && json_is_string(v))
			return p->valid(json_string_value(v));
		if (p->valid) {
			char buf[32];

			snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
			return p->valid(buf);
		}
		return NULL;
	}
	return "a known parameter type";
}
