/*
 * fold.c: identical outputs share one group, distinct ones stay apart (also
 * when only the last byte differs), groups come back in the order of their
 * first host, and outputs past FOLD_SPILL_AT go to the spill file and come
 * back byte for byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../../engine/ssh/fold.h"

/* Feeds `len` bytes of pattern `seed` in uneven pieces, as a channel would. */
static struct fold_out *out_of(struct fold *f, int seed, size_t len, const char *err)
{
	struct fold_out *o = fold_out_new(f);
	char buf[7001];

	for (size_t done = 0; done < len;) {
		size_t n = len - done < sizeof(buf) ? len - done : sizeof(buf) - (done % 13);
		for (size_t i = 0; i < n; i++)
			buf[i] = (char)('a' + (done + i + (size_t)(seed % 100)) % 26);
		if (done + n == len && seed > 100)
			buf[n - 1] = 'Z'; /* differs from seed - 100 in the last byte only */
		fold_out_sink(o, 0, buf, n);
		done += n;
	}
	if (err)
		fold_out_sink(o, 1, err, strlen(err));
	return o;
}

static void expect_pattern(struct fold *f, size_t g, int seed, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	struct err err = ERR_INIT;

	assert_int_equal(fold_group_get(f, g, 0, &sb, &err), 0);
	assert_int_equal(sb.len, len);
	for (size_t i = 0; i < len; i++)
		if (sb.buf[i] != (char)('a' + (i + (size_t)(seed % 100)) % 26) &&
		    !(seed > 100 && i == len - 1 && sb.buf[i] == 'Z'))
			fail_msg("byte %zu differs", i);
	strbuf_release(&sb);
}

static void test_identical_outputs_share_a_group_in_host_order(void **state)
{
	struct fold *f = fold_new();
	size_t n;
	const size_t *h;

	(void)state;
	/* Hosts finish out of order. */
	fold_add(f, out_of(f, 1, 100, NULL), 3);
	fold_add(f, out_of(f, 2, 100, NULL), 1);
	fold_add(f, out_of(f, 1, 100, NULL), 0);
	fold_add(f, out_of(f, 1, 100, "warn\n"), 2);
	assert_int_equal(fold_ngroups(f), 3);
	h = fold_group_hosts(f, 0, &n);
	assert_int_equal(n, 2);
	assert_int_equal(h[0], 0);
	assert_int_equal(h[1], 3);
	h = fold_group_hosts(f, 1, &n);
	assert_int_equal(n, 1);
	assert_int_equal(h[0], 1);
	assert_int_equal(fold_group_of(f, 2), 2);
	assert_int_equal(fold_group_len(f, 2, 1), 5);
	assert_int_equal(fold_group_of(f, 9), (size_t)-1);
	expect_pattern(f, 0, 1, 100);
	fold_free(f);
}

static void test_large_outputs_spill_and_come_back_whole(void **state)
{
	struct fold *f = fold_new();
	size_t big = 3 * FOLD_SPILL_AT + 12345, n;

	(void)state;
	/* Interleaved writers: their extents mix in the spill file. */
	struct fold_out *a = fold_out_new(f), *b = fold_out_new(f), *c;
	struct fold_out *ref_a = out_of(f, 5, big, NULL), *ref_b = out_of(f, 105, big, NULL);
	fold_add(f, ref_a, 0);
	fold_add(f, ref_b, 1);
	for (size_t done = 0; done < big; done += 1000) {
		size_t k = big - done < 1000 ? big - done : 1000;
		char x[1000], y[1000];
		for (size_t i = 0; i < k; i++)
			x[i] = y[i] = (char)('a' + (done + i + 5) % 26);
		if (done + k == big)
			y[k - 1] = 'Z';
		fold_out_sink(a, 0, x, k);
		fold_out_sink(b, 0, y, k);
	}
	fold_add(f, b, 3);
	fold_add(f, a, 2);
	c = out_of(f, 5, big - 1, NULL); /* a prefix is not the same output */
	fold_add(f, c, 4);
	assert_int_equal(fold_ngroups(f), 3);
	fold_group_hosts(f, 0, &n);
	assert_int_equal(n, 2); /* hosts 0 and 2 */
	fold_group_hosts(f, 1, &n);
	assert_int_equal(n, 2); /* hosts 1 and 3: same up to the last byte */
	expect_pattern(f, 0, 5, big);
	expect_pattern(f, 1, 105, big);
	expect_pattern(f, 2, 5, big - 1);
	fold_free(f);
}

/* Every host failed: nothing to print, and nothing undefined on the way. */
static void test_no_output_at_all(void **state)
{
	struct fold *f = fold_new();

	(void)state;
	assert_int_equal(fold_ngroups(f), 0);
	assert_int_equal(fold_group_of(f, 0), (size_t)-1);
	fold_out_free(fold_out_new(f));
	fold_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identical_outputs_share_a_group_in_host_order),
		cmocka_unit_test(test_large_outputs_spill_and_come_back_whole),
		cmocka_unit_test(test_no_output_at_all),
	};
	return cmocka_run_group_tests_name("fold", tests, NULL, NULL);
}
