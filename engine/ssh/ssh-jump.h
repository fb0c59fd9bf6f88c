/*
 * Jump hosts (ProxyJump), layered over the SSH session (ssh.h): a jump host
 * is reached with conn_open like any host, and gives the hosts behind it
 * their connections through jump_via(), a struct conn_via.
 */
#ifndef BRINGUP_SSH_JUMP_H
#define BRINGUP_SSH_JUMP_H

#include <stdbool.h>

#include "../base/err.h"
#include "ssh.h"

/*
 * A jump host (ProxyJump) shared by every host behind it: their connections
 * ride direct-tcpip channels multiplexed over at most `nsessions` sessions
 * to it (inventory's jump_sessions), not one session each: a stock sshd
 * (MaxStartups 10:30:100) resets a third of 256 logins arriving at once.
 *
 * Threading rule: once authenticated, a jump session belongs to its pump
 * thread alone; no other thread calls libssh on it. A host's connection
 * asks for a channel through the jump's queue (jump_tunnel, any thread,
 * any number at once) and then talks to the pump through its own end of a
 * socketpair, which libssh uses as that connection's socket; the pump moves
 * bytes between socketpairs and channels, never writing more than a
 * channel's window, so that one slow host cannot stall the others. Sessions
 * open lazily, a lost one is reopened by the next request, and a failed
 * connect is repeated to requests within the connect timeout instead of
 * being waited out again by each host.
 */
struct jump;
/* label names the jump host in messages. Caller owns the result (jump_free,
 * after every conn through it is closed). */
struct jump *jump_new(const char *label, const struct ssh_target *t,
		      const struct conn_opts *o, unsigned nsessions);
void jump_free(struct jump *j);
/* Whether j goes to the same place as t, as the same user with the same key. */
bool jump_same(const struct jump *j, const struct ssh_target *t);
/*
 * A channel through j to address:port, opened by deadline_ms: *ret_fd is a
 * socket whose far end is the channel, owned by the caller. Errors name
 * host `name`.
 */
int jump_tunnel(struct jump *j, const char *name, const char *address, unsigned port,
		long long deadline_ms, int *ret_fd, struct err *err);
/* j as the way to reach the hosts behind it: conn_open(..., &via, ...).
 * j must outlive every connection opened through it. */
struct conn_via jump_via(struct jump *j);

#endif
