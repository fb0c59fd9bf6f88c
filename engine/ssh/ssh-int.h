/*
 * What the SSH transport's own files (ssh.c, ssh-upload.c) share beyond
 * ssh.h: a conn's libssh session and name. Nothing outside engine/ssh*.c
 * includes this.
 */
#ifndef BRINGUP_SSH_INT_H
#define BRINGUP_SSH_INT_H

#include <libssh/libssh.h>

#include "ssh.h"

ssh_session conn_ssh(const struct conn *c);
const char *conn_name(const struct conn *c);

#endif
