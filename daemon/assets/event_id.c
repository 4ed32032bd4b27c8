#include "daemon/assets/event_id.h"

void event_id_text(const char id[4], char out[EVENT_ID_TEXT_BYTES])
{
	static const char hex[] = "0123456789abcdef";
	char *o = out;

	for (int i = 0; i < 4; i++) {
		unsigned char b = (unsigned char)id[i];

		if (b >= 0x20 && b <= 0x7e && b != '\\') {
			*o++ = (char)b;
		} else {
			*o++ = '\\';
			*o++ = 'x';
			*o++ = hex[b >> 4];
			*o++ = hex[b & 0xf];
		}
	}
	*o = '\0';
}
