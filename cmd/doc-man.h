/*
 * bringup(1) from the tables: man/bringup.1.in holds the prose, with
 * directives (roff comments) where the generated parts go.
 */
#ifndef BRINGUP_DOC_MAN_H
#define BRINGUP_DOC_MAN_H

#include "../engine/base/err.h"
#include "../engine/base/strbuf.h"

/*
 * Renders the page into out. tmpl is man/bringup.1.in; inv_md is
 * inventory/README.md, whose key tables become the INVENTORY section.
 * Directives, each alone on a line:
 *   .\" @synopsis            every command's synopsis line
 *   .\" @commands            one subsection per command: synopsis, summary,
 *                            its prose, every option of its table
 *   .\" @command NAME        starts NAME's prose (up to the next directive or .SH)
 *   .\" @exit-status         the exit status table
 *   .\" @inventory           the key tables of inventory/README.md
 *   .\" @checks              every precheck id, severity, title and hint
 *   .\" @modules             every stage module with its parameters
 * ERR_PARSE names the line of a prose block for a command the table lacks.
 */
int doc_man(struct strbuf *out, const char *tmpl, const char *inv_md, struct err *e);

/* s escaped for roff text (backslashes, hyphens, a leading dot or quote). */
void doc_roff_escape(struct strbuf *out, const char *s, size_t n);

#endif
