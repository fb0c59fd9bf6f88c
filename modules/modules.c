/*
 * THE module table, sorted by name (a unit test checks it). The typed
 * parameter checks every module shares live with the interface, in
 * engine/deploy/module.c.
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
extern const struct stage_module mod_scale_preflight;
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
	&mod_scale_preflight,
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
