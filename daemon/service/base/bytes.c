#include "daemon/service/base/bytes.h"

#include <stdio.h>

const char *bytes_format(uint64_t n, char *buf, size_t len)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	unsigned u = 0;
	uint64_t whole, scaled;

	if (len == 0)
		return buf;
	if (n < 1024) {
		snprintf(buf, len, "%llu byte%s", (unsigned long long)n, n == 1 ? "" : "s");
		return buf;
	}
	while (u + 1 < sizeof units / sizeof units[0] && n >> (10 * (u + 2)) != 0)
		u++;
	whole = n >> (10 * (u + 1));
	if ((whole << (10 * (u + 1))) == n || whole >= 100) {
		snprintf(buf, len, "%llu %s", (unsigned long long)whole, units[u]);
		return buf;
	}
	/* Hundredths (whole < 10) or tenths (whole < 100), rounded down, in
	 * integers: n < 100 units, so n * 100 cannot overflow below TiB. */
	if (whole < 10) {
		scaled = (n * 100) >> (10 * (u + 1));
		snprintf(buf, len, "%llu.%02llu %s", (unsigned long long)(scaled / 100),
			 (unsigned long long)(scaled % 100), units[u]);
	} else {
		scaled = (n * 10) >> (10 * (u + 1));
		snprintf(buf, len, "%llu.%llu %s", (unsigned long long)(scaled / 10),
			 (unsigned long long)(scaled % 10), units[u]);
	}
	return buf;
}
