/*
 * kube-client's watch stream splitter (kube_watch_split_*): events handed
 * over whole whatever the chunking, the stream stopped where the callback
 * says, and an answer that is no stream (a Status) kept for the caller.
 * The event lines are shaped as the API server's watch lines
 * ({"type": ..., "object": ...}, one JSON object a line).
 * The fake transport (kube_client_new_transport, what fuzz-kube answers
 * through) hands requests, answers, watch streams and the body cap to the
 * code above it as libcurl does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
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

struct canned {
	long status;
	const char *body;
	size_t len, calls;
	char method[8], path[64];
};

static int canned_answer(void *arg, const char *method, const char *path, const char *body,
			 size_t body_len, long *ret_status, struct strbuf *ret_body,
			 struct err *err)
{
	struct canned *c = arg;

	(void)body;
	(void)body_len;
	c->calls++;
	strncpy(c->method, method, sizeof(c->method) - 1);
	strncpy(c->path, path, sizeof(c->path) - 1);
	if (!c->body)
		return err_set(err, ERR_CONNECT, "%s %s: refused", method, path);
	*ret_status = c->status;
	strbuf_add(ret_body, c->body, c->len);
	return 0;
}

static void test_transport(void **state)
{
	static const char node[] = "{\"kind\":\"Node\",\"spec\":{\"unschedulable\":true}}";
	struct canned c = { 200, node, sizeof(node) - 1, 0, "", "" };
	struct kube_transport t = { canned_answer, &c };
	struct kube_client *kc = kube_client_new_transport("https://api.test:6443", &t);
	struct kube_response r;
	struct seen s = { .n = 0, .stop_on = "DELETED" };
	struct err e = ERR_INIT;
	char *big;

	(void)state;
	assert_string_equal(kube_client_server(kc), "https://api.test:6443");
	assert_int_equal(kube_request(kc, "GET", "/api/v1/nodes/n1", NULL, NULL, 0, &r, &e), 0);
	assert_string_equal(c.method, "GET");
	assert_string_equal(c.path, "/api/v1/nodes/n1");
	assert_int_equal(r.status, 200);
	assert_true(json_is_true(json_object_get(json_object_get(r.json, "spec"), "unschedulable")));
	kube_response_release(&r);

	/* a watch: events to the callback until it stops the stream */
	c.body = stream;
	c.len = sizeof(stream) - 1;
	assert_int_equal(kube_watch(kc, "/apis/batch/v1/jobs?watch=1", 5, on_event, &s, &r, &e), 7);
	assert_int_equal(s.n, 3);
	kube_response_release(&r);

	/* an answer over the cap fails as libcurl's transfer would */
	big = malloc(KUBE_MAX_BODY + 2);
	memset(big, ' ', KUBE_MAX_BODY + 1);
	big[KUBE_MAX_BODY + 1] = '\0';
	c.body = big;
	c.len = KUBE_MAX_BODY + 1;
	assert_int_equal(kube_request(kc, "GET", "/big", NULL, NULL, 0, &r, &e), ERR_CONNECT);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(err_msg(&e), "larger than"));
	kube_response_release(&r);
	err_clear(&e);
	free(big);

	/* a lost connection */
	c.body = NULL;
	assert_int_equal(kube_request(kc, "GET", "/x", NULL, NULL, 0, &r, &e), ERR_CONNECT);
	assert_int_equal(r.status, 0);
	kube_response_release(&r);
	err_clear(&e);
	kube_client_free(kc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_any_chunking),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_status_instead_of_stream),
		cmocka_unit_test(test_transport),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
