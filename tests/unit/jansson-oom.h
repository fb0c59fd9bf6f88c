/*
 * jansson's allocator, failing from the n-th call on, for tests that prove a
 * loader treats jansson's NULL (out of memory) as an error:
 * json_set_alloc_funcs(failing_malloc, free), set alloc_budget around the
 * call, then json_set_alloc_funcs(malloc, free).
 */
#ifndef BRINGUP_TEST_JANSSON_OOM_H
#define BRINGUP_TEST_JANSSON_OOM_H

#include <stdlib.h>

/* Allocations left before each one fails; negative: no limit. */
static long alloc_budget = -1;

static void *failing_malloc(size_t n)
{
	if (alloc_budget == 0)
		return NULL;
	if (alloc_budget > 0)
		alloc_budget--;
	return malloc(n);
}

#endif
