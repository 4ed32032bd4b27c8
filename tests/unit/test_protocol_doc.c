/*
 * The method table in code and proto/PROTOCOL.md must agree: every method
 * the daemon dispatches has a section, every section names a real method,
 * and every event type and error code is documented; the stats section's
 * table lists exactly the fields the daemon packs (method_stats_fields),
 * each with a type and a meaning, and so do the layer table of
 * layer.add's (instance_pack_layer_fields) and the connection table of
 * clients.list's (method_clients_fields); the events that are not
 * subscribe names (monitor.request, client.killed) have their rows too;
 * section 13's header table
 * numbers every stream space by its name and gives its stride.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/assets/sampling.h"
#include "daemon/service/control/dispatch.h"
#include "daemon/service/control/instance_pack.h"
#include "proto/animd_proto.h"
#include "proto/animd_shm.h"

static char *doc;

static int load_doc(void **state)
{
	FILE *f = fopen("proto/PROTOCOL.md", "r");
	long n;

	(void)state;
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	doc = calloc(1, (size_t)n + 1);
	assert_int_equal(fread(doc, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return 0;
}

static int free_doc(void **state)
{
	(void)state;
	free(doc);
	return 0;
}

/* 1 if a "### " heading line mentions `name`. */
static int heading_mentions(const char *name)
{
	char needle[96];

	snprintf(needle, sizeof needle, "`%s`", name);
	for (const char *line = doc; line != NULL; line = strchr(line, '\n')) {
		const char *end;

		line += *line == '\n';
		if (strncmp(line, "### ", 4) != 0)
			continue;
		end = strchr(line, '\n');
		for (const char *p = strstr(line, needle); p != NULL && (!end || p < end);
		     p = strstr(p + 1, needle))
			return 1;
	}
	return 0;
}

static void test_every_method_documented_and_dispatched(void **state)
{
	(void)state;
	for (int m = 0; m < PROTO_METHOD_COUNT; m++) {
		if (!heading_mentions(proto_method_name((enum proto_method)m)))
			fail_msg("PROTOCOL.md has no section for %s", proto_method_name((enum proto_method)m));
		assert_true(dispatch_handles((enum proto_method)m));
	}
}

static void test_every_heading_is_a_method(void **state)
{
	(void)state;
	for (const char *line = doc; line != NULL; line = strchr(line, '\n')) {
		const char *p, *end;

		line += *line == '\n';
		if (strncmp(line, "### `", 5) != 0)
			continue;
		end = strchr(line, '\n');
		/* Each backticked name before the first " — " is a method. */
		for (p = line + 4; p != NULL && *p == '`';) {
			const char *close = strchr(p + 1, '`');

			assert_non_null(close);
			if (proto_method_lookup(p + 1, (size_t)(close - p - 1)) < 0)
				fail_msg("PROTOCOL.md documents unknown method %.*s", (int)(close - p - 1), p + 1);
			p = close + 1;
			if (strncmp(p, ", `", 3) != 0)
				break;
			p += 2;
		}
		(void)end;
	}
}

static void test_events_and_errors_documented(void **state)
{
	char needle[96];

	(void)state;
	for (int e = 0; e < PROTO_EVENT_COUNT; e++) {
		snprintf(needle, sizeof needle, "| `%s` |", proto_event_name((enum proto_event)e));
		if (strstr(doc, needle) == NULL)
			fail_msg("PROTOCOL.md does not document event %s", needle);
	}
	for (size_t i = 0; i < 2; i++) {
		snprintf(needle, sizeof needle, "| `%s` |",
			 i == 0 ? PROTO_MONITOR_EVENT : PROTO_KILLED_EVENT);
		if (strstr(doc, needle) == NULL)
			fail_msg("PROTOCOL.md does not document event %s", needle);
	}
	for (int c = PROTO_ERR_NONE + 1; c < PROTO_ERR_COUNT; c++) {
		snprintf(needle, sizeof needle, "| `%s` |", proto_error_name((enum proto_error)c));
		if (strstr(doc, needle) == NULL)
			fail_msg("PROTOCOL.md does not document error %s", needle);
	}
}

/* The text of the "### `name`" section: from its heading to the next
 * heading of any level (malloc'd). */
static char *section_of(const char *name)
{
	char needle[96];
	const char *start, *end;
	char *text;

	snprintf(needle, sizeof needle, "\n### `%s`", name);
	start = strstr(doc, needle);
	if (start == NULL)
		return NULL;
	start++;
	end = strstr(start + 1, "\n#");
	if (end == NULL)
		end = start + strlen(start);
	text = strndup(start, (size_t)(end - start));
	assert_non_null(text);
	return text;
}

static bool field_known(const char *const *fields, const char *name, size_t len)
{
	for (size_t i = 0; fields[i] != NULL; i++)
		if (strlen(fields[i]) == len && strncmp(fields[i], name, len) == 0)
			return true;
	return false;
}

/* Every row "| `field` | type | meaning |" of the section of `method`
 * names one of `fields` and has a type and a meaning, and every one of
 * `fields` has its row. */
static void check_field_table(const char *method, const char *const *fields)
{
	char *sec = section_of(method);
	unsigned rows = 0, count = 0;

	assert_non_null(sec);
	for (const char *line = sec; line != NULL; line = strchr(line, '\n')) {
		const char *name, *tick, *type, *meaning;

		line += *line == '\n';
		if (strncmp(line, "| `", 3) != 0)
			continue;
		name = line + 3;
		tick = strchr(name, '`');
		assert_non_null(tick);
		if (!field_known(fields, name, (size_t)(tick - name)))
			fail_msg("PROTOCOL.md's %s table lists %.*s, which the daemon does not send",
				 method, (int)(tick - name), name);
		type = strstr(tick, " | ");
		assert_non_null(type);
		meaning = strstr(type + 3, " | ");
		assert_non_null(meaning);
		assert_true(meaning > type + 3);                /* a type */
		assert_true(strlen(meaning) > 6 && meaning[3] != '|'); /* a meaning */
		rows++;
	}
	for (size_t i = 0; fields[i] != NULL; i++) {
		char needle[96];

		snprintf(needle, sizeof needle, "\n| `%s` |", fields[i]);
		if (strstr(sec, needle) == NULL)
			fail_msg("PROTOCOL.md's %s table has no row for %s", method, fields[i]);
		count++;
	}
	assert_int_equal(rows, count);
	free(sec);
}

static void test_stats_fields_documented(void **state)
{
	(void)state;
	check_field_table("stats", method_stats_fields);
}

/* The layer map of the instance state, in layer.add's section. */
static void test_layer_fields_documented(void **state)
{
	(void)state;
	check_field_table("layer.add", instance_pack_layer_fields);
}

/* A connection of clients.list. */
static void test_clients_fields_documented(void **state)
{
	(void)state;
	check_field_table("clients.list", method_clients_fields);
}

/* The line of the doc that starts with `prefix`, as a string (freed by
 * the caller). */
static char *doc_line(const char *prefix)
{
	const char *at = strstr(doc, prefix), *end;
	char *line;

	if (at == NULL)
		fail_msg("PROTOCOL.md has no line \"%s\"", prefix);
	end = strchr(at, '\n');
	line = strndup(at, end != NULL ? (size_t)(end - at) : strlen(at));
	assert_non_null(line);
	return line;
}

/* The header's `space` row says "N name" for every space a stream has
 * (the stream spaces are the sample spaces, numbered alike), and its
 * `element_stride` row lists their strides in that order. */
static void test_stream_spaces_documented(void **state)
{
	char *spaces = doc_line("| 32 | u32 | `space` |");
	char *strides = doc_line("| 36 | u32 | `element_stride` |");
	char want[64], list[256] = "";
	uint32_t n = 0;

	(void)state;
	for (; animd_shm_stride(n) != 0; n++) {
		assert_true(n < SAMPLE_SPACE_COUNT);
		snprintf(want, sizeof want, " %u %s", n, sample_space_names[n]);
		if (strstr(spaces, want) == NULL)
			fail_msg("PROTOCOL.md's space row lacks \"%s\": %s", want + 1, spaces);
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%u", n ? ", " : " ",
			 animd_shm_stride(n));
	}
	assert_int_equal(n, SAMPLE_SPACE_COUNT);
	if (strstr(strides, list) == NULL)
		fail_msg("PROTOCOL.md's stride row lacks \"%s\": %s", list + 1, strides);
	free(spaces);
	free(strides);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_method_documented_and_dispatched),
		cmocka_unit_test(test_every_heading_is_a_method),
		cmocka_unit_test(test_events_and_errors_documented),
		cmocka_unit_test(test_stats_fields_documented),
		cmocka_unit_test(test_layer_fields_documented),
		cmocka_unit_test(test_clients_fields_documented),
		cmocka_unit_test(test_stream_spaces_documented),
	};

	return cmocka_run_group_tests(tests, load_doc, free_doc);
}
