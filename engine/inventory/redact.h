/*
 * Secrets out of everything we print or write: the one place that knows
 * which strings are secret and replaces them with REDACTED.
 *
 * A secret is the string value (anywhere below) of an inventory variable
 * whose name says so: password, passwd, secret, token, credential, api_key,
 * apikey, private_key (any case, as part of the name: bmc_password,
 * kube_token). Values shorter than 4 characters are not redacted: "****"
 * for every "on" or "1" would hide more than it protects.
 *
 * Writers redact the text they hold before encoding it (JSON, shell quoting,
 * XML), so that an escaped form never hides a secret from the match: the
 * deploy engine redacts reasons, changes and diffs as it records them (so the
 * journal, events, text and JSON summaries all get the redacted text), the
 * run log its records, exec and precheck their results.
 *
 * Threading: secrets are added before work starts and only read after.
 */
#ifndef BRINGUP_REDACT_H
#define BRINGUP_REDACT_H

#include <jansson.h>
#include <stddef.h>

#include "../base/err.h"
#include "inventory.h"
#include "../base/strbuf.h"

#define REDACTED "********"

struct redactor;

/* An empty redactor; caller frees (redactor_free wipes the secrets). */
struct redactor *redactor_new(void);
void redactor_free(struct redactor *r);

/* Adds one secret (ignored when shorter than 4 or already known). */
void redactor_add(struct redactor *r, const char *secret);
/* Adds the strings under every key of `vars` (recursively) whose name says secret. */
void redactor_add_vars(struct redactor *r, const json_t *vars);
/* Adds the secrets of the cluster's, every group's and every host's variables. */
void redactor_add_inventory(struct redactor *r, const struct inventory *inv);

/* Every function below takes a NULL redactor as one with no secrets. */

/* Appends s[0..len) with every secret replaced by REDACTED (longest match first). */
void redact_into(const struct redactor *r, const char *s, size_t len, struct strbuf *out);
/* A redacted copy of s (caller frees), NULL for NULL. */
char *redact_dup(const struct redactor *r, const char *s);
/* Redacts sb in place. */
void redact_strbuf(const struct redactor *r, struct strbuf *sb);
/* Replaces *s (malloc'd, may be NULL) with its redacted copy. */
void redact_str(const struct redactor *r, char **s);
/* Redacts every string value (not keys) of a JSON tree in place. */
void redact_json(const struct redactor *r, json_t *j);
/* Redacts a message in place. */
void redact_err(const struct redactor *r, struct err *e);

#endif
