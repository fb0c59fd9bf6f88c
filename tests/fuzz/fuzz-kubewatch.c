/* libFuzzer target: engine/kube/kube-client.c's watch stream splitter, what
 * `validate --via kubernetes` reads from the API server while it waits.
 * First byte: the chunk size the bytes arrive in (1-256); then the stream.
 * Traps on a broken contract: an event handed over after the callback
 * stopped the stream, or more events than lines. See tests/fuzz/README.md. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../engine/kube/kube-client.h"

struct seen {
	size_t events;
	int stopped;
};

static int on_event(void *arg, const char *type, json_t *object)
{
	struct seen *s = arg;

	if (s->stopped || !type || !json_is_object(object))
		__builtin_trap();
	s->events++;
	if (!strcmp(type, "DELETED"))
		return s->stopped = 3;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kube_watch_split w;
	struct strbuf rest;
	struct seen s = { 0, 0 };
	size_t chunk, lines = 1;
	int rc = 0;

	if (!size)
		return 0;
	chunk = (size_t)data[0] + 1;
	data++;
	size--;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	kube_watch_split_init(&w, on_event, &s);
	for (size_t off = 0; off < size && !rc; off += chunk)
		rc = kube_watch_split_feed(&w, (const char *)data + off,
					   size - off < chunk ? size - off : chunk);
	kube_watch_split_finish(&w, &rest);
	if (s.events > lines || (rc > 0 && rc != s.stopped) || rest.len > size)
		__builtin_trap();
	strbuf_release(&rest);
	return 0;
}
