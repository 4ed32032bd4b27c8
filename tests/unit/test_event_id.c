/*
 * event_id: an M2 event's four bytes as text: printable ASCII as it is,
 * the backslash and every other byte (controls, DEL, high bytes, NUL) as
 * \xNN, so that the text is always plain ASCII.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "daemon/assets/event_id.h"

static const char *text(const char *id)
{
	static char out[EVENT_ID_TEXT_BYTES];

	event_id_text(id, out);
	return out;
}

static void test_plain_ids(void **state)
{
	(void)state;
	assert_string_equal(text("$DTH"), "$DTH");
	assert_string_equal(text("FSt\""), "FSt\"");
	assert_string_equal(text(" ~ ~"), " ~ ~");
}

static void test_escaped_bytes(void **state)
{
	(void)state;
	assert_string_equal(text("A\\B\x7f"), "A\\x5cB\\x7f");
	assert_string_equal(text("\x00\x01\x1f\x20"), "\\x00\\x01\\x1f ");
	assert_string_equal(text("\xff\x80\xc3\xa9"), "\\xff\\x80\\xc3\\xa9");
	/* The longest text fills the buffer exactly. */
	assert_int_equal(strlen(text("\n\n\n\n")), EVENT_ID_TEXT_BYTES - 1);
	for (const char *p = text("\xff\x01\\\x7f"); *p != '\0'; p++)
		assert_true(*p >= 0x20 && *p <= 0x7e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_ids),
		cmocka_unit_test(test_escaped_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
