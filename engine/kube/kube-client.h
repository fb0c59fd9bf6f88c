/*
 * kube-client: talking to a Kubernetes API server the way kubectl does, with
 * libcurl. A kubeconfig (server, CA, bearer token or client certificate and
 * key) is read once; TLS is always verified (a self-signed API server needs
 * its CA: there is no switch that turns verification off, and a kubeconfig
 * asking for insecure-skip-tls-verify is refused). The token and key travel
 * only to libcurl: never into argv, messages, logs or files of ours.
 *
 * Requests and answers are bounded (KUBE_MAX_BODY); each has a timeout.
 */
#ifndef BRINGUP_KUBE_CLIENT_H
#define BRINGUP_KUBE_CLIENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/err.h"
#include "../base/strbuf.h"

#define KUBE_MAX_BODY (8u << 20)

struct kube_client;

/*
 * Which kubeconfig: `path` when given (--kubeconfig), else `inv_path` (the
 * inventory's openshift.kubeconfig: the inventory names its cluster, a
 * $KUBECONFIG set for another one must not win), else the first file of
 * $KUBECONFIG, else ~/.kube/config. Returns the chosen path (caller frees) and where it came
 * from in *ret_source ("--kubeconfig", "KUBECONFIG", ...).
 */
char *kube_config_path(const char *path, const char *inv_path, const char **ret_source);

/*
 * Loads the current context of the kubeconfig at `path`. ERR_INVENTORY names
 * the file and what is missing or refused. Caller frees (kube_client_free).
 */
int kube_client_new(const char *path, struct kube_client **ret, struct err *err);
void kube_client_free(struct kube_client *kc);

/*
 * A transport in place of libcurl, for tests and fuzzing: `perform` answers
 * METHOD on PATH with *ret_status and the body's bytes appended to
 * ret_body, or returns an error (err filled) as a failed connection would.
 * Everything above it (status handling, JSON, watch streams, the body cap)
 * runs as with a real server.
 */
struct kube_transport {
	int (*perform)(void *arg, const char *method, const char *path, const char *body,
		       size_t body_len, long *ret_status, struct strbuf *ret_body,
		       struct err *err);
	void *arg;
};
/* A client that talks only through t (copied); `server` names it in messages. */
struct kube_client *kube_client_new_transport(const char *server, const struct kube_transport *t);

/* The server URL and the kubeconfig user's name (for messages). */
const char *kube_client_server(const struct kube_client *kc);
const char *kube_client_user(const struct kube_client *kc);
/* Seconds a request may take (default 30). */
void kube_client_set_timeout(struct kube_client *kc, unsigned seconds);

struct kube_response {
	long status;         /* HTTP status; 0 when no answer came */
	struct strbuf body;
	json_t *json;        /* the body parsed, when it is JSON; owned */
};

void kube_response_release(struct kube_response *r);

/*
 * One request: METHOD to PATH (with its query) under the server, with `body`
 * of `content_type` (both may be NULL). Fills *resp (release it) whatever
 * the status; returns ERR_CONNECT / ERR_TIMEOUT / ERR_AUTH (TLS) when no HTTP
 * answer came, 0 otherwise. Like client-go, it asks again, within the
 * client's timeout, after a 429 with Retry-After, a 5xx or a connection
 * reset (Retry-After's delay, else a capped exponential backoff); the last
 * answer is the one returned.
 */
int kube_request(struct kube_client *kc, const char *method, const char *path,
		 const char *content_type, const char *body, size_t body_len,
		 struct kube_response *resp, struct err *err);

/*
 * A watch: GET `path` (a list with ?watch=1&resourceVersion=RV&
 * timeoutSeconds=N) as a stream; `fn` gets each event's type ("ADDED",
 * "MODIFIED", "DELETED", "BOOKMARK") and object as it arrives, and ends the
 * watch by returning non-zero (a positive value is returned). Returns 0
 * when the server closed the stream (its timeoutSeconds), ERR_* when no
 * HTTP answer came; an answer that is no stream (a Status: 403, 404...) is
 * in *resp (release it; status 200 for a stream).
 */
int kube_watch(struct kube_client *kc, const char *path, unsigned timeout_s,
	       int (*fn)(void *arg, const char *type, json_t *object), void *arg,
	       struct kube_response *resp, struct err *err);

/*
 * The watch stream's splitter (what kube_watch feeds; a fuzz target too):
 * bytes in any chunking, one JSON event a line, handed to fn until it
 * returns non-zero. A line that is no event (a Status answered instead of
 * a stream) is kept, and finish hands over what was kept (caller releases).
 * feed returns fn's non-zero value once it stopped, -1 for a line longer
 * than KUBE_MAX_BODY, else 0.
 */
struct kube_watch_split {
	struct strbuf line;
	struct strbuf body;
	int (*fn)(void *arg, const char *type, json_t *object);
	void *arg;
	int stop;
};
void kube_watch_split_init(struct kube_watch_split *w,
			   int (*fn)(void *arg, const char *type, json_t *object), void *arg);
int kube_watch_split_feed(struct kube_watch_split *w, const char *data, size_t len);
void kube_watch_split_finish(struct kube_watch_split *w, struct strbuf *ret_rest);

/* Decodes RFC 4648 base64 (whitespace ignored); false when malformed. */
bool kube_base64_decode(const char *in, struct strbuf *out);

#endif
