/*
 * gen-man: writes bringup(1) from man/bringup.1.in, the command, check and
 * module tables and inventory/README.md (`make man`).
 * usage: gen-man TEMPLATE INVENTORY_README > bringup.1
 */
#include "../cmd/doc-man.h"

#include <stdio.h>
#include <stdlib.h>

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	struct strbuf sb = STRBUF_INIT;
	char buf[8192];
	size_t n;

	if (!f) {
		perror(path);
		exit(1);
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(f);
	return strbuf_detach(&sb, NULL);
}

int main(int argc, char **argv)
{
	struct strbuf out = STRBUF_INIT;
	struct err e = ERR_INIT;
	char *tmpl, *md;

	if (argc != 3) {
		fprintf(stderr, "usage: gen-man TEMPLATE INVENTORY_README\n");
		return 2;
	}
	tmpl = slurp(argv[1]);
	md = slurp(argv[2]);
	if (doc_man(&out, tmpl, md, &e)) {
		fprintf(stderr, "gen-man: %s\n", err_msg(&e));
		return 1;
	}
	fwrite(out.buf, 1, out.len, stdout);
	strbuf_release(&out);
	free(tmpl);
	free(md);
	return 0;
}
