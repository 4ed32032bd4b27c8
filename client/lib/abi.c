/*
 * abi.c - the sizes of the structs callers allocate, frozen since 1.0: a
 * field added later goes into a struct's reserved space, and these asserts
 * fail the build of any change that would move what a program compiled
 * against an older animclient.h put where (x86-64 and other LP64 ABIs).
 */
#include "client/animclient.h"

#if defined(__LP64__)
_Static_assert(sizeof(animc_play_opts) == 96, "animc_play_opts is part of the 1.0 ABI");
_Static_assert(sizeof(animc_sample_opts) == 80, "animc_sample_opts is part of the 1.0 ABI");
_Static_assert(sizeof(animc_stream_opts) == 56, "animc_stream_opts is part of the 1.0 ABI");
_Static_assert(sizeof(animc_reconnect_opts) == 64, "animc_reconnect_opts is part of the 1.0 ABI");
_Static_assert(sizeof(animc_stream_info) == 96, "animc_stream_info is part of the 1.0 ABI");
_Static_assert(sizeof(animc_pose_info) == 104, "animc_pose_info is part of the 1.0 ABI");
_Static_assert(sizeof(animc_attachment_element) == 64, "animc_attachment_element is a stream's");
#endif
