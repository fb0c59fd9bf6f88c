/*
 * kube-client's watch stream splitter (kube_watch_split_*): events handed
 * over whole whatever the chunking, the stream stopped where the callback
 * says, and an answer that is no stream (a Status) kept for the caller.
 * The event lines are shaped as the API server's watch lines
 * ({"type": ..., "object": ...}, one JSON object a line).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../../engine/kube/kube-client.h"

struct seen {
	char types[8][16];
	size_t n;
	const char *stop_on;
};

static int on_event(void *arg, const char *type, json_t *object)
{
	struct seen *s = arg;

	assert_true(json_is_object(object));
	assert_true(s->n < 8);
	strncpy(s->types[s->n++], type, 15);
	return s->stop_on && !strcmp(type, s->stop_on) ? 7 : 0;
}

static const char stream[] =
	"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"j\",\"resourceVersion\":\"5\"}}}\n"
	"{\"type\":\"MODIFIED\",\"object\":{\"status\":{\"conditions\":[]}}}\n"
	"{\"type\":\"DELETED\",\"object\":{}}\n"
	"{\"type\":\"ADDED\",\"object\":{}}\n";

static void test_any_chunking(void **state)
{
	(void)state;
	for (size_t chunk = 1; chunk <= sizeof(stream); chunk++) {
		struct kube_watch_split w;
		struct seen s = { .n = 0 };
		struct strbuf rest;

		kube_watch_split_init(&w, on_event, &s);
		for (size_t off = 0; off < sizeof(stream) - 1; off += chunk) {
			size_t n = sizeof(stream) - 1 - off;

			assert_int_equal(kube_watch_split_feed(&w, stream + off, n < chunk ? n : chunk), 0);
		}
		kube_watch_split_finish(&w, &rest);
		assert_int_equal(s.n, 4);
		assert_string_equal(s.types[1], "MODIFIED");
		assert_int_equal(rest.len, 0);
		strbuf_release(&rest);
	}
}

static void test_stop(void **state)
{
	struct kube_watch_split w;
	struct seen s = { .n = 0, .stop_on = "DELETED" };
	struct strbuf rest;

	(void)state;
	kube_watch_split_init(&w, on_event, &s);
	assert_int_equal(kube_watch_split_feed(&w, stream, sizeof(stream) - 1), 7);
	/* nothing after the stop reaches the callback */
	assert_int_equal(kube_watch_split_feed(&w, stream, sizeof(stream) - 1), 7);
	kube_watch_split_finish(&w, &rest);
	assert_int_equal(s.n, 3);
	strbuf_release(&rest);
}

static void test_status_instead_of_stream(void **state)
{
	static const char status[] = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":"
		"\"Failure\",\"reason\":\"Forbidden\",\"code\":403}";
	struct kube_watch_split w;
	struct seen s = { .n = 0 };
	struct strbuf rest;

	(void)state;
	kube_watch_split_init(&w, on_event, &s);
	assert_int_equal(kube_watch_split_feed(&w, status, sizeof(status) - 1), 0);
	kube_watch_split_finish(&w, &rest);
	assert_int_equal(s.n, 0);
	assert_int_equal(rest.len, sizeof(status) - 1);
	assert_memory_equal(rest.buf, status, rest.len);
	strbuf_release(&rest);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_any_chunking),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_status_instead_of_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
