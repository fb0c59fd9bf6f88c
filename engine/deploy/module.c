/*
 * The parts of the stage-module interface (module.h) that are code: a
 * module's parameter by name and the typed check of a parameter's value.
 * They live with the interface, not with the module table, so that the
 * playbook loader depends on the interface alone and modules/ on the engine.
 */
#include "module.h"

#include <stdio.h>
#include <string.h>

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
