/*
 * The directory on a host that a module's upload goes to (the OFED
 * tarball, the GPU driver's runfile): created 0700 for the login user, or
 * refused when it is a symlink or another user's (templates/ofed/dest-dir.sh
 * says why), so that nobody can swap the file before it runs as root.
 */
#ifndef BRINGUP_MODULES_UPLOAD_DIR_H
#define BRINGUP_MODULES_UPLOAD_DIR_H

#include "../engine/deploy/module.h"

/* Fails the module with ERR_STATE and the script's reason; `what` names the upload. */
int upload_dir(struct mod_ctx *mc, const char *dir, const char *what);

#endif
