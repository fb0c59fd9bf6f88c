/*
 * What an NVIDIA driver runfile (NVIDIA-Linux-x86_64-550.90.07.run) is,
 * read on the admin host before anything is sent or stopped: the Makeself
 * header it starts with names the driver (version_string=, a label
 * "NVIDIA Accelerated Graphics Driver for Linux-ARCH VERSION") and the
 * machine (TARGET_ARCH=); a file named like a runfile must name the same
 * version; and its SHA-256 (ssh.h's cached upload_local_sha256).
 */
#ifndef BRINGUP_GPU_RUNFILE_H
#define BRINGUP_GPU_RUNFILE_H

#include <stddef.h>
#include <sys/types.h>

#include "../engine/base/err.h"

struct gpu_runfile {
	char *version;  /* 550.90.07 */
	char *arch;     /* x86_64, aarch64 ... */
	char *sha256;   /* hex, 64 characters; NULL from gpu_runfile_parse */
	off_t size;
};

/*
 * Reads the header `head` (the file's first bytes, len of them) of the
 * runfile `name` (used in messages). ERR_PARSE saying what is missing:
 * not a shell archive, not a driver runfile (a CUDA or other Makeself
 * installer), no version_string or TARGET_ARCH. Release with
 * gpu_runfile_release, also after an error.
 */
int gpu_runfile_parse(const char *name, const char *head, size_t len, struct gpu_runfile *ret,
		      struct err *err);

/*
 * Reads `path`'s header, checks that a name NVIDIA-Linux-ARCH-VERSION.run
 * agrees with it (ERR_PARSE naming both), and adds size and SHA-256.
 * ERR_IO when it cannot be read. Release with gpu_runfile_release, also
 * after an error.
 */
int gpu_runfile_inspect(const char *path, struct gpu_runfile *ret, struct err *err);
void gpu_runfile_release(struct gpu_runfile *r);

#endif
