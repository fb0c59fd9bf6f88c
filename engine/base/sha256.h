/*
 * sha256: SHA-256 (FIPS 180-4) of a byte string in memory, for identifiers
 * that must match other tools' (kubectl's ApplySet ID, engine/kube/
 * kube-prune.c). Not for secrets or files: sha256sum does files
 * (engine/ssh/ssh-upload.c).
 */
#ifndef BRINGUP_SHA256_H
#define BRINGUP_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* The 32-byte digest of data[0..len). */
void sha256(const void *data, size_t len, uint8_t ret_digest[32]);

#endif
