/*
 * Memory the daemon may take, from a fake /proc/self/cgroup and cgroup
 * tree: cgroup v2's memory.max of the group and its ancestors, v1's
 * memory.limit_in_bytes, "max" and unreadable files as no limit, and the
 * quarter of the smaller of that and physical memory, with why.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/service/base/memlimit.h"

#define GIB ((uint64_t)1 << 30)
#define MIB ((uint64_t)1 << 20)

struct tree {
	char root[64];
};

static int tree_setup(void **state)
{
	struct tree *t = calloc(1, sizeof *t);

	assert_non_null(t);
	snprintf(t->root, sizeof t->root, "/tmp/animd-test-memlimit-XXXXXX");
	assert_non_null(mkdtemp(t->root));
	*state = t;
	return 0;
}

static int tree_teardown(void **state)
{
	struct tree *t = *state;
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->root);
	assert_int_equal(system(cmd), 0);
	free(t);
	return 0;
}

/* Write text into root/rel, making its directories. */
static void put(const struct tree *t, const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", t->root, rel);
	snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void probe(const struct tree *t, const char *proc, uint64_t physical, struct memlimit *m)
{
	memlimit_probe_at(proc, strlen(proc), t->root, physical, m);
}

static void test_v2_group_and_ancestors(void **state)
{
	struct tree *t = *state;
	struct memlimit m;
	char why[128];

	put(t, "system.slice/animd.service/memory.max", "max\n");
	put(t, "system.slice/memory.max", "max\n");
	probe(t, "0::/system.slice/animd.service\n", 16 * GIB, &m);
	assert_int_equal(m.physical, 16 * GIB);
	assert_int_equal(m.cgroup, 0);
	assert_int_equal(memlimit_quarter(&m, why, sizeof why), 4 * GIB);
	assert_string_equal(why, "a quarter of 16 GiB, physical memory");

	/* MemoryMax=2G on the service. */
	put(t, "system.slice/animd.service/memory.max", "2147483648\n");
	probe(t, "0::/system.slice/animd.service\n", 16 * GIB, &m);
	assert_int_equal(m.cgroup, 2 * GIB);
	assert_int_equal(memlimit_quarter(&m, why, sizeof why), 512 * MIB);
	assert_string_equal(why, "a quarter of 2 GiB, the cgroup's memory limit");

	/* A smaller limit on the slice above caps it too. */
	put(t, "system.slice/memory.max", "1073741824\n");
	probe(t, "0::/system.slice/animd.service\n", 16 * GIB, &m);
	assert_int_equal(m.cgroup, GIB);

	/* A container's namespace root has a memory.max of its own. */
	put(t, "memory.max", "536870912\n");
	probe(t, "0::/system.slice/animd.service\n", 16 * GIB, &m);
	assert_int_equal(m.cgroup, 512 * MIB);
	probe(t, "0::/\n", 16 * GIB, &m);
	assert_int_equal(m.cgroup, 512 * MIB);

	/* A limit above physical memory changes nothing. */
	probe(t, "0::/\n", 256 * MIB, &m);
	assert_int_equal(memlimit_quarter(&m, why, sizeof why), 64 * MIB);
	assert_string_equal(why, "a quarter of 256 MiB, physical memory");
}

static void test_v1_memory_controller(void **state)
{
	struct tree *t = *state;
	struct memlimit m;

	put(t, "memory/user.slice/memory.limit_in_bytes", "9223372036854771712\n");
	put(t, "memory/user.slice/app/memory.limit_in_bytes", "3221225472\n");
	probe(t,
	      "12:pids:/user.slice\n"
	      "4:cpu,cpuacct:/user.slice\n"
	      "3:memory:/user.slice/app\n"
	      "1:name=systemd:/user.slice/app\n",
	      64 * GIB, &m);
	assert_int_equal(m.cgroup, 3 * GIB);
	/* Controllers listed together are found too. */
	probe(t, "3:cpu,memory:/user.slice/app\n", 64 * GIB, &m);
	assert_int_equal(m.cgroup, 3 * GIB);
	/* "memoryx" is not "memory". */
	probe(t, "3:memoryx:/user.slice/app\n", 64 * GIB, &m);
	assert_int_equal(m.cgroup, 0);
}

static void test_nothing_to_read(void **state)
{
	struct tree *t = *state;
	struct memlimit m;
	char why[128];

	/* No such group, garbage, an empty file: no limit, no failure. */
	probe(t, "0::/nowhere\n", 8 * GIB, &m);
	assert_int_equal(m.cgroup, 0);
	put(t, "bad/memory.max", "12abc\n");
	probe(t, "0::/bad\n", 8 * GIB, &m);
	assert_int_equal(m.cgroup, 0);
	put(t, "empty/memory.max", "");
	probe(t, "0::/empty", 8 * GIB, &m);
	assert_int_equal(m.cgroup, 0);
	probe(t, "garbage without colons", 8 * GIB, &m);
	assert_int_equal(m.cgroup, 0);
	probe(t, "", 0, &m);
	assert_int_equal(memlimit_quarter(&m, why, sizeof why), GIB);
	assert_string_equal(why, "physical memory unknown");
}

/* The real thing: something sensible, whatever the machine. */
static void test_this_machine(void **state)
{
	struct memlimit m;
	char why[128];
	uint64_t q;

	(void)state;
	memlimit_probe(&m);
	assert_true(m.physical > 0);
	q = memlimit_quarter(&m, why, sizeof why);
	assert_true(q > 0 && q <= m.physical / 4);
	if (m.cgroup != 0)
		assert_true(q <= m.cgroup / 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_v2_group_and_ancestors, tree_setup,
						tree_teardown),
		cmocka_unit_test_setup_teardown(test_v1_memory_controller, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_nothing_to_read, tree_setup, tree_teardown),
		cmocka_unit_test(test_this_machine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
