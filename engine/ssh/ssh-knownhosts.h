/*
 * The known_hosts markers that libssh skips: `@revoked` and `@cert-authority`.
 *
 * libssh 0.10's ssh_session_is_known_server() ignores every line that starts
 * with '@', so a revoked key looked merely unknown (and
 * --accept-new-host-keys recorded it as trusted), and a host vouched for only
 * by a CA line looked unknown too. ssh.c asks this file first:
 *   - @revoked: OpenSSH refuses the key. We refuse it for every host,
 *     whatever the line's host patterns (a stricter reading: a revoked key is
 *     not trusted anywhere, and hashed patterns need no HMAC to apply);
 *   - @cert-authority: honouring it needs host certificates, which libssh
 *     0.10 does not verify; a host such a line covers (and no plain line
 *     does) is refused with a message that says so, never recorded.
 * Line syntax as sshd(8) "SSH_KNOWN_HOSTS FILE FORMAT" describes it.
 */
#ifndef BRINGUP_SSH_KNOWNHOSTS_H
#define BRINGUP_SSH_KNOWNHOSTS_H

#include <stdbool.h>

#include "../base/err.h"

struct kh_markers {
	unsigned revoked_line;  /* first @revoked line with this key; 0: none */
	unsigned ca_line;       /* first @cert-authority line whose patterns cover the host; 0: none */
};

/*
 * OpenSSH's host pattern lists: comma-separated, '*' and '?' wildcards, a
 * '!' pattern that matches rejects the host outright; case-insensitive.
 * Hashed entries (|1|salt|hash) never match here.
 */
bool kh_host_matches(const char *patterns, const char *host);

/*
 * Scans known_hosts `path` for marker lines about `host` ("addr" or
 * "[addr]:port", as known_hosts writes it) whose server key is `key_b64`
 * (the base64 blob). A missing file has no markers. *ret is always filled.
 */
int kh_scan_markers(const char *path, const char *host, const char *key_b64,
		    struct kh_markers *ret, struct err *err);

#endif
