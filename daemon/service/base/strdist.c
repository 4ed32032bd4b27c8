#include "daemon/service/base/strdist.h"

#include <string.h>

static unsigned char strdist_fold(char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : (unsigned char)c;
}

static size_t strdist_min(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* The classic table, three rows of it: the row before the previous one
 * for the swap of two adjacent characters. */
size_t strdist(const char *a, const char *b, size_t max)
{
	size_t rows[3][STRDIST_LEN_MAX + 1];
	size_t *before = rows[0], *prev = rows[1], *cur = rows[2];
	size_t la = strlen(a), lb = strlen(b);

	if (la > STRDIST_LEN_MAX || lb > STRDIST_LEN_MAX)
		return max + 1;
	/* The distance is at least the difference in length. */
	if ((la > lb ? la - lb : lb - la) > max)
		return max + 1;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *t;

		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned char ca = strdist_fold(a[i - 1]), cb = strdist_fold(b[j - 1]);
			size_t v = strdist_min(prev[j] + 1, cur[j - 1] + 1);

			v = strdist_min(v, prev[j - 1] + (ca != cb));
			if (i > 1 && j > 1 && ca == strdist_fold(b[j - 2]) &&
			    strdist_fold(a[i - 2]) == cb)
				v = strdist_min(v, before[j - 2] + 1);
			cur[j] = v;
		}
		t = before;
		before = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb] <= max ? prev[lb] : max + 1;
}
