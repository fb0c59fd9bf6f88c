/*
 * The Kubernetes API client: kubeconfig loading (yamltree), libcurl easy
 * requests with verified TLS and the credentials handed to libcurl only.
 * See kube-client.h.
 */
#include "kube-client.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "../base/lazylib.h"
#include "../base/xalloc.h"
#include "../base/yamltree.h"

struct kube_client {
	char *path;            /* the kubeconfig */
	char *server;          /* https://host:port, no trailing slash */
	char *user;            /* the kubeconfig user's name */
	char *ca_file;         /* certificate-authority */
	char *proxy;           /* proxy-url: http, https or socks5, as kubectl takes it */
	struct strbuf ca;      /* certificate-authority-data, decoded */
	char *cert_file, *key_file;
	struct strbuf cert, key; /* client-certificate-data / client-key-data */
	struct strbuf token;   /* bearer token; wiped when freed */
	unsigned timeout_s;
	CURL *curl;
	struct kube_transport transport; /* perform set: used instead of curl */
	long retry_after;      /* the last answer's Retry-After (seconds), -1 when none */
	CURLcode last_cc;      /* the last transfer's libcurl result */
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_init(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

char *kube_config_path(const char *path, const char *inv_path, const char **ret_source)
{
	const char *env = getenv("KUBECONFIG"), *home = getenv("HOME");

	if (path && *path) {
		*ret_source = "--kubeconfig";
		return xstrdup(path);
	}
	/* The inventory names the cluster it describes: a $KUBECONFIG left in
	 * the admin's shell for another cluster must not redirect deploy or
	 * upgrade there (issue 25), so the inventory's wins over it. */
	if (inv_path && *inv_path) {
		*ret_source = "the inventory's openshift.kubeconfig";
		if (inv_path[0] == '~' && inv_path[1] == '/' && home)
			return xasprintf("%s%s", home, inv_path + 1);
		return xstrdup(inv_path);
	}
	if (env && *env) {
		*ret_source = "KUBECONFIG";
		return xstrndup(env, strcspn(env, ":"));
	}
	*ret_source = "~/.kube/config";
	return xasprintf("%s/.kube/config", home && *home ? home : ".");
}

bool kube_base64_decode(const char *in, struct strbuf *out)
{
	unsigned acc = 0, bits = 0, pad = 0;

	for (const char *p = in; *p; p++) {
		int v;
		char c = *p;

		if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
			continue;
		if (c == '=') {
			pad++;
			continue;
		}
		if (pad)
			return false;
		if (c >= 'A' && c <= 'Z') v = c - 'A';
		else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
		else if (c >= '0' && c <= '9') v = c - '0' + 52;
		else if (c == '+') v = 62;
		else if (c == '/') v = 63;
		else return false;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			strbuf_addch(out, (int)((acc >> bits) & 0xff));
		}
	}
	return pad <= 2;
}

static void wipe(struct strbuf *sb)
{
	if (sb->alloc)
		explicit_bzero(sb->buf, sb->alloc);
	strbuf_release(sb);
}

struct kube_client *kube_client_new_transport(const char *server, const struct kube_transport *t)
{
	struct kube_client *kc = xcalloc(1, sizeof(*kc));

	kc->path = xstrdup("(transport)");
	kc->server = xstrdup(server);
	kc->user = xstrdup("(transport)");
	kc->timeout_s = 30;
	kc->transport = *t;
	return kc;
}

void kube_client_free(struct kube_client *kc)
{
	if (!kc)
		return;
	if (kc->curl)
		curl_easy_cleanup(kc->curl);
	free(kc->path);
	free(kc->server);
	free(kc->user);
	free(kc->ca_file);
	free(kc->proxy);
	free(kc->cert_file);
	free(kc->key_file);
	wipe(&kc->ca);
	wipe(&kc->cert);
	wipe(&kc->key);
	wipe(&kc->token);
	free(kc);
}

/* The entry of list `key` (clusters, users, contexts) named `name`. */
static json_t *named(json_t *cfg, const char *key, const char *name)
{
	json_t *list = json_object_get(cfg, key), *v;
	size_t i;

	json_array_foreach(list, i, v)
		if (json_is_string(json_object_get(v, "name")) &&
		    !strcmp(json_string_value(json_object_get(v, "name")), name))
			return v;
	return NULL;
}

/* A relative path in a kubeconfig is relative to the kubeconfig's directory. */
static char *rel_path(const char *cfg_path, const char *p)
{
	const char *slash = strrchr(cfg_path, '/');

	if (p[0] == '/' || !slash)
		return xstrdup(p);
	return xasprintf("%.*s/%s", (int)(slash - cfg_path), cfg_path, p);
}

static int read_secret_file(const char *path, struct strbuf *out, struct err *err)
{
	FILE *f = fopen(path, "r");
	char buf[4096];
	size_t n;

	if (!f)
		return err_set(err, ERR_INVENTORY, "cannot read token file %s", path);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && out->len < 65536)
		strbuf_add(out, buf, n);
	explicit_bzero(buf, sizeof(buf));
	fclose(f);
	strbuf_rtrim(out);
	return 0;
}

static int load_user(struct kube_client *kc, json_t *u, struct err *err)
{
	const char *s;

	if ((s = json_string_value(json_object_get(u, "token"))))
		strbuf_addstr(&kc->token, s);
	else if ((s = json_string_value(json_object_get(u, "tokenFile")))) {
		char *p = rel_path(kc->path, s);
		int rc = read_secret_file(p, &kc->token, err);

		free(p);
		if (rc)
			return rc;
	}
	if ((s = json_string_value(json_object_get(u, "client-certificate"))))
		kc->cert_file = rel_path(kc->path, s);
	if ((s = json_string_value(json_object_get(u, "client-key"))))
		kc->key_file = rel_path(kc->path, s);
	if ((s = json_string_value(json_object_get(u, "client-certificate-data"))) &&
	    !kube_base64_decode(s, &kc->cert))
		return err_set(err, ERR_INVENTORY, "%s: user '%s': client-certificate-data is not "
			       "base64", kc->path, kc->user);
	if ((s = json_string_value(json_object_get(u, "client-key-data"))) &&
	    !kube_base64_decode(s, &kc->key))
		return err_set(err, ERR_INVENTORY, "%s: user '%s': client-key-data is not base64",
			       kc->path, kc->user);
	if (json_object_get(u, "exec") || json_object_get(u, "auth-provider"))
		return err_set(err, ERR_INVENTORY, "%s: user '%s' logs in through an exec or "
			       "auth-provider plugin, which bringup does not run: give a token "
			       "(tokenFile) or a client certificate", kc->path, kc->user);
	if (!kc->token.len && !kc->cert_file && !kc->cert.len)
		return err_set(err, ERR_INVENTORY, "%s: user '%s' has no token, tokenFile or "
			       "client certificate", kc->path, kc->user);
	if ((kc->cert_file || kc->cert.len) && !kc->key_file && !kc->key.len)
		return err_set(err, ERR_INVENTORY, "%s: user '%s' has a client certificate but "
			       "no client-key", kc->path, kc->user);
	return 0;
}

int kube_client_new(const char *path, struct kube_client **ret, struct err *err)
{
	struct kube_client *kc = xcalloc(1, sizeof(*kc));
	struct strbuf text = STRBUF_INIT;
	struct ytree t = { 0 };
	json_t *cfg = NULL, *ctx, *cl, *u;
	const char *cur, *s;
	FILE *f;
	int rc = 0;

	pthread_once(&curl_once, curl_init);
	*ret = NULL;
	kc->path = xstrdup(path);
	kc->timeout_s = 30;
	if (!(f = fopen(path, "r"))) {
		rc = err_set(err, ERR_INVENTORY, "cannot read kubeconfig %s", path);
		goto out;
	}
	{
		char buf[8192];
		size_t n;

		while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && text.len < (1u << 20))
			strbuf_add(&text, buf, n);
		explicit_bzero(buf, sizeof(buf));
		fclose(f);
	}
	if ((rc = ytree_load(&t, path, text.buf, text.len, err)))
		goto out;
	if (!ytree_root(&t) || !(cfg = ytree_to_json(&t, ytree_root(&t), "the kubeconfig"))) {
		rc = err && err->code ? err->code : err_set(err, ERR_INVENTORY, "%s: empty kubeconfig", path);
		goto out;
	}
	cur = json_string_value(json_object_get(cfg, "current-context"));
	if (!cur || !(ctx = named(cfg, "contexts", cur))) {
		rc = err_set(err, ERR_INVENTORY, "%s: no current-context, or it names no context", path);
		goto out;
	}
	ctx = json_object_get(ctx, "context");
	s = json_string_value(json_object_get(ctx, "cluster"));
	cl = s ? json_object_get(named(cfg, "clusters", s), "cluster") : NULL;
	s = json_string_value(json_object_get(ctx, "user"));
	u = s ? json_object_get(named(cfg, "users", s), "user") : NULL;
	if (!cl || !u) {
		rc = err_set(err, ERR_INVENTORY, "%s: context '%s' names a cluster or user the "
			     "file does not have", path, cur);
		goto out;
	}
	kc->user = xstrdup(s);
	s = json_string_value(json_object_get(cl, "server"));
	if (!s || strncmp(s, "https://", 8)) {
		rc = err_set(err, ERR_INVENTORY, "%s: cluster of context '%s': server must be an "
			     "https:// URL (bringup speaks TLS only)", path, cur);
		goto out;
	}
	kc->server = xstrdup(s);
	while (strlen(kc->server) > 8 && kc->server[strlen(kc->server) - 1] == '/')
		kc->server[strlen(kc->server) - 1] = '\0';
	if (json_is_true(json_object_get(cl, "insecure-skip-tls-verify"))) {
		rc = err_set(err, ERR_INVENTORY, "%s: cluster of context '%s' sets "
			     "insecure-skip-tls-verify: bringup always verifies the API server; give "
			     "its CA as certificate-authority instead", path, cur);
		goto out;
	}
	if ((s = json_string_value(json_object_get(cl, "certificate-authority"))))
		kc->ca_file = rel_path(path, s);
	/* proxy-url (kubeconfig v1 Cluster): the schemes client-go's transport
	 * takes, http, https and socks5; it wins over $HTTPS_PROXY as there */
	if ((s = json_string_value(json_object_get(cl, "proxy-url")))) {
		if (strncmp(s, "http://", 7) && strncmp(s, "https://", 8) &&
		    strncmp(s, "socks5://", 9)) {
			rc = err_set(err, ERR_INVENTORY, "%s: cluster of context '%s': proxy-url '%s' "
				     "is not an http://, https:// or socks5:// URL", path, cur, s);
			goto out;
		}
		kc->proxy = xstrdup(s);
	}
	if ((s = json_string_value(json_object_get(cl, "certificate-authority-data"))) &&
	    !kube_base64_decode(s, &kc->ca)) {
		rc = err_set(err, ERR_INVENTORY, "%s: certificate-authority-data is not base64", path);
		goto out;
	}
	if ((rc = load_user(kc, u, err)))
		goto out;
	if ((rc = lazylib_curl(err)))
		goto out;
	if (!(kc->curl = curl_easy_init()))
		rc = err_set(err, ERR_INTERNAL, "curl_easy_init failed");
out:
	if (t.loaded || t.file)
		ytree_release(&t);
	json_decref(cfg);
	wipe(&text);
	if (rc)
		kube_client_free(kc);
	else
		*ret = kc;
	return rc;
}

const char *kube_client_server(const struct kube_client *kc)
{
	return kc->server;
}

const char *kube_client_user(const struct kube_client *kc)
{
	return kc->user;
}

void kube_client_set_timeout(struct kube_client *kc, unsigned seconds)
{
	kc->timeout_s = seconds;
}

void kube_response_release(struct kube_response *r)
{
	strbuf_release(&r->body);
	json_decref(r->json);
	r->json = NULL;
	r->status = 0;
}

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct strbuf *sb = arg;

	if (sb->len + size * n > KUBE_MAX_BODY)
		return 0; /* libcurl fails the transfer: an answer this big is not ours */
	strbuf_add(sb, data, size * n);
	return size * n;
}

static void blob(CURL *c, CURLoption opt, struct strbuf *sb)
{
	struct curl_blob b = { sb->buf, sb->len, CURL_BLOB_COPY };

	curl_easy_setopt(c, opt, &b);
}

/* perform() through kc->transport: the answer goes to `write` as libcurl
 * would hand it over (in pieces of at most CURL_MAX_WRITE_SIZE), with
 * libcurl's outcome when `write` takes less than it was given. */
static int perform_transport(struct kube_client *kc, const char *method, const char *path,
			     const char *body, size_t body_len,
			     size_t (*write)(char *, size_t, size_t, void *), void *warg,
			     long *ret_status, struct err *err)
{
	struct strbuf answer = STRBUF_INIT;
	int rc = kc->transport.perform(kc->transport.arg, method, path, body, body_len,
				       ret_status, &answer, err);

	for (size_t off = 0; !rc && off < answer.len;) {
		size_t n = answer.len - off < CURL_MAX_WRITE_SIZE ? answer.len - off :
			   CURL_MAX_WRITE_SIZE;

		if (write(answer.buf + off, 1, n, warg) != n) {
			/* as libcurl: a write callback taking less fails the transfer,
			 * which a watch's callback does on purpose to end it */
			if (write == on_body)
				rc = err_set(err, ERR_CONNECT, "%s %s: answer larger than %u bytes",
					     method, kc->server, KUBE_MAX_BODY);
			break;
		}
		off += n;
	}
	if (rc)
		*ret_status = 0;
	strbuf_release(&answer);
	return rc;
}

/*
 * One transfer: METHOD on PATH, the answer's bytes to `write` (libcurl's
 * write callback, `warg` its argument). The token goes to libcurl only and
 * is dropped with the handle's reset. *ret_status gets the HTTP status.
 */
/* Keeps the answer's Retry-After (delay-seconds; an HTTP date counts as 1 s). */
static size_t on_header(char *data, size_t size, size_t n, void *arg)
{
	struct kube_client *kc = arg;
	size_t len = size * n;
	static const char name[] = "retry-after:";

	if (len > sizeof(name) - 1 && !strncasecmp(data, name, sizeof(name) - 1)) {
		char *end;
		long v = strtol(data + sizeof(name) - 1, &end, 10);

		kc->retry_after = end != data + sizeof(name) - 1 && v >= 0 ? v : 1;
	}
	return len;
}

/*
 * What a failed TLS handshake means, from OpenSSL's verify result
 * (CURLINFO_SSL_VERIFYRESULT: X509_V_ERR_* of openssl/x509_vfy.h) and, for
 * the host name, which libcurl checks itself, its message ("no alternative
 * certificate subject name matches target host name"): an unknown CA, a
 * name mismatch and an expired certificate each need another fix.
 */
static const char *tls_hint(long vr, const char *msg)
{
	switch (vr) {
	case 9:   /* X509_V_ERR_CERT_NOT_YET_VALID */
		return " (TLS: the API server's certificate is not valid yet: compare this "
		       "host's clock with the server's)";
	case 10:  /* X509_V_ERR_CERT_HAS_EXPIRED */
		return " (TLS: the API server's certificate has expired: renew the cluster's "
		       "certificates, or check this host's clock)";
	case 2:   /* X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT */
	case 18:  /* X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT */
	case 19:  /* X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN */
	case 20:  /* X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY */
	case 21:  /* X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE */
		return " (TLS: unknown CA: the kubeconfig's certificate-authority did not sign "
		       "the API server's certificate; verification is never turned off)";
	case 62:  /* X509_V_ERR_HOSTNAME_MISMATCH */
	case 64:  /* X509_V_ERR_IP_ADDRESS_MISMATCH */
		break;
	default:
		if (!strstr(msg, "subject name") && !strstr(msg, "does not match"))
			return " (TLS: the kubeconfig's certificate-authority must sign the API "
			       "server's certificate; verification is never turned off)";
	}
	return " (TLS: name mismatch: the API server's certificate does not name the host "
	       "of the kubeconfig's server: use a name or address it lists)";
}

static int perform(struct kube_client *kc, const char *method, const char *path,
		   const char *content_type, const char *body, size_t body_len,
		   size_t (*write)(char *, size_t, size_t, void *), void *warg,
		   unsigned timeout_s, long *ret_status, struct err *err)
{
	CURL *c = kc->curl;
	struct curl_slist *hdrs = NULL;
	char errbuf[CURL_ERROR_SIZE] = "";
	char *url, *ct = NULL;
	CURLcode cc;
	int rc = 0;

	*ret_status = 0;
	kc->retry_after = -1;
	kc->last_cc = CURLE_OK;
	if (kc->transport.perform)
		return perform_transport(kc, method, path, body, body_len, write, warg,
					 ret_status, err);
	url = xasprintf("%s%s", kc->server, path);
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https");
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)timeout_s);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, warg);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "bringup");
	kc->retry_after = -1;
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, kc);
	if (kc->ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, kc->ca_file);
	if (kc->proxy)
		curl_easy_setopt(c, CURLOPT_PROXY, kc->proxy);
	if (kc->ca.len)
		blob(c, CURLOPT_CAINFO_BLOB, &kc->ca);
	if (kc->cert_file)
		curl_easy_setopt(c, CURLOPT_SSLCERT, kc->cert_file);
	if (kc->cert.len)
		blob(c, CURLOPT_SSLCERT_BLOB, &kc->cert);
	if (kc->key_file)
		curl_easy_setopt(c, CURLOPT_SSLKEY, kc->key_file);
	if (kc->key.len)
		blob(c, CURLOPT_SSLKEY_BLOB, &kc->key);
	if (kc->token.len) {
		/* libcurl builds the Authorization header itself: the token is in no list of ours */
		curl_easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
		curl_easy_setopt(c, CURLOPT_XOAUTH2_BEARER, kc->token.buf);
	}
	hdrs = curl_slist_append(hdrs, "Accept: application/json");
	if (content_type) {
		ct = xasprintf("Content-Type: %s", content_type);
		hdrs = curl_slist_append(hdrs, ct);
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
	}
	cc = curl_easy_perform(c);
	kc->last_cc = cc;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, ret_status);
	if (cc != CURLE_OK && !(cc == CURLE_WRITE_ERROR && write != on_body)) {
		int code = cc == CURLE_OPERATION_TIMEDOUT ? ERR_TIMEOUT :
			   (cc == CURLE_PEER_FAILED_VERIFICATION || cc == CURLE_SSL_CACERT_BADFILE ||
			    cc == CURLE_SSL_CONNECT_ERROR || cc == CURLE_SSL_CERTPROBLEM) ? ERR_AUTH :
			   ERR_CONNECT;

		long vr = 0;

		curl_easy_getinfo(c, CURLINFO_SSL_VERIFYRESULT, &vr);
		rc = err_set(err, code, "%s %s: %s%s", method, kc->server,
			     errbuf[0] ? errbuf : curl_easy_strerror(cc),
			     code == ERR_AUTH ? tls_hint(vr, errbuf) : "");
	}
	/* libcurl copied the token into its handle; reset drops it */
	curl_easy_reset(c);
	curl_slist_free_all(hdrs);
	free(ct);
	free(url);
	return rc;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Whether an answer is worth asking again, as client-go's rest client
 * decides (k8s.io/client-go/rest/request.go, checkWait and the retry of
 * "connection reset by peer" in IsRetryableError): a 429 that says when
 * (Retry-After; a PodDisruptionBudget's 429 says nothing and is the
 * caller's to handle), any 5xx (an API server restarting, "etcdserver:
 * leader changed"), a connection reset or closed before the answer.
 */
static bool retryable(const struct kube_client *kc, int rc, long status)
{
	if (rc)
		return kc->last_cc == CURLE_RECV_ERROR || kc->last_cc == CURLE_SEND_ERROR ||
		       kc->last_cc == CURLE_GOT_NOTHING;
	return (status == 429 && kc->retry_after >= 0) || status >= 500;
}

int kube_request(struct kube_client *kc, const char *method, const char *path,
		 const char *content_type, const char *body, size_t body_len,
		 struct kube_response *resp, struct err *err)
{
	double end = mono_s() + kc->timeout_s, delay = 0.1;
	unsigned tries = 0;
	int rc;

	/*
	 * Retries within the request's own deadline (kube_client_set_timeout):
	 * the server's Retry-After, else a backoff doubling from 100 ms to at
	 * most 5 s. The last answer (its status and message) or error is what
	 * the caller gets; an error says how many tries it took.
	 */
	for (;;) {
		double left = end - mono_s();

		*resp = (struct kube_response){ 0, STRBUF_INIT, NULL };
		tries++;
		rc = perform(kc, method, path, content_type, body, body_len, on_body, &resp->body,
			     left < 1 ? 1 : (unsigned)(left + 0.999), &resp->status, err);
		if (rc)
			resp->status = 0;
		else
			resp->json = json_loadb(resp->body.buf, resp->body.len, 0, NULL);
		/* An in-process transport (tests, fuzzing) answers at once: there
		 * is no server to wait for. */
		if (!retryable(kc, rc, resp->status) || kc->transport.perform)
			break;
		double wait = kc->retry_after >= 0 ? (double)kc->retry_after : delay;

		if (mono_s() + wait >= end)
			break;
		kube_response_release(resp);
		err_clear(err);
		struct timespec ts = { (time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9) };

		nanosleep(&ts, NULL);
		delay = delay * 2 > 5 ? 5 : delay * 2;
	}
	if (rc && tries > 1)
		err_prefix(err, "after %u tries: ", tries);
	return rc;
}

void kube_watch_split_init(struct kube_watch_split *w,
			   int (*fn)(void *arg, const char *type, json_t *object), void *arg)
{
	*w = (struct kube_watch_split){ STRBUF_INIT, STRBUF_INIT, fn, arg, 0 };
}

int kube_watch_split_feed(struct kube_watch_split *w, const char *data, size_t len)
{
	for (size_t i = 0; i < len && !w->stop; i++) {
		if (data[i] != '\n') {
			if (w->line.len >= KUBE_MAX_BODY)
				return -1;
			strbuf_addch(&w->line, data[i]);
			continue;
		}
		json_t *ev = json_loadb(w->line.buf ? w->line.buf : "", w->line.len, 0, NULL);
		const char *type = json_string_value(json_object_get(ev, "type"));
		json_t *obj = json_object_get(ev, "object");

		if (!type || !json_is_object(obj)) {
			/* not an event: an error Status answered in one piece */
			if (w->body.len + w->line.len <= KUBE_MAX_BODY)
				strbuf_add(&w->body, w->line.buf ? w->line.buf : "", w->line.len);
		} else {
			w->stop = w->fn(w->arg, type, obj);
		}
		json_decref(ev);
		strbuf_reset(&w->line);
	}
	return w->stop;
}

void kube_watch_split_finish(struct kube_watch_split *w, struct strbuf *ret_rest)
{
	if (w->line.len && w->body.len + w->line.len <= KUBE_MAX_BODY)
		strbuf_add(&w->body, w->line.buf, w->line.len); /* no final newline */
	strbuf_release(&w->line);
	*ret_rest = w->body;
	w->body = (struct strbuf)STRBUF_INIT;
}

static size_t on_event(char *data, size_t size, size_t n, void *arg)
{
	/* 0 makes libcurl end the transfer: we have what we waited for, or a
	 * line too long to be an event */
	return kube_watch_split_feed(arg, data, size * n) ? 0 : size * n;
}

int kube_watch(struct kube_client *kc, const char *path, unsigned timeout_s,
	       int (*fn)(void *arg, const char *type, json_t *object), void *arg,
	       struct kube_response *resp, struct err *err)
{
	struct kube_watch_split w;
	int rc;

	kube_watch_split_init(&w, fn, arg);
	*resp = (struct kube_response){ 0, STRBUF_INIT, NULL };
	rc = perform(kc, "GET", path, NULL, NULL, 0, on_event, &w, timeout_s + 10,
		     &resp->status, err);
	kube_watch_split_finish(&w, &resp->body);
	resp->json = json_loadb(resp->body.buf ? resp->body.buf : "", resp->body.len, 0, NULL);
	if (rc)
		return rc;
	return w.stop > 0 ? w.stop : 0;
}
