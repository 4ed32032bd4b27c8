/*
 * event_id.h - an M2 event's four-byte id as text, the one way every
 * output writes it (inspect, assets.info, clip.event): the bytes 0x20 to
 * 0x7e but the backslash as they are, every other byte as "\xNN" (two
 * lower-case hex digits).  Files hold ids such as "$DTH", and junk: the
 * text is plain ASCII whatever the bytes, so it is valid UTF-8 in JSON and
 * in a msgpack str, prints safely, and reads back unambiguously.
 */
#ifndef ANIMD_EVENT_ID_H
#define ANIMD_EVENT_ID_H

/* Four "\xNN" and the NUL. */
#define EVENT_ID_TEXT_BYTES 17

/* id (4 bytes, any values) into out, NUL-terminated. */
void event_id_text(const char id[4], char out[EVENT_ID_TEXT_BYTES]);

#endif
