// acl_compare.cpp - ACL beside the codec in bench_codec (acl_compare.h).
// Built only when `make bench ACL_DIR=...` names ACL's sources.
#include "tests/bench/acl_compare.h"

#include <acl/compression/compress.h>
#include <acl/compression/track_array.h>
#include <acl/compression/transform_error_metrics.h>
#include <acl/core/ansi_allocator.h>
#include <acl/decompression/decompress.h>

#include <new>

namespace {

// ACL hands each joint's decompressed parts to a writer; this one stores
// them as ten floats a joint.
struct pose_writer : public acl::track_writer {
	float *out = nullptr;

	void RTM_SIMD_CALL write_rotation(uint32_t i, rtm::quatf_arg0 q)
	{
		rtm::quat_store(q, out + i * 10 + 3);
	}
	void RTM_SIMD_CALL write_translation(uint32_t i, rtm::vector4f_arg0 v)
	{
		rtm::vector_store3(v, out + i * 10);
	}
	void RTM_SIMD_CALL write_scale(uint32_t i, rtm::vector4f_arg0 v)
	{
		rtm::vector_store3(v, out + i * 10 + 7);
	}
};

} // namespace

struct acl_clip {
	acl::ansi_allocator alloc;
	acl::compressed_tracks *tracks = nullptr;
	acl::decompression_context<acl::default_transform_decompression_settings> ctx;
	pose_writer writer;
};

extern "C" struct acl_clip *acl_clip_compress(const float *frames, uint32_t joints,
					      uint32_t frame_count, uint32_t rate,
					      const int32_t *parents, float precision,
					      float shell_distance)
{
	acl_clip *c = new (std::nothrow) acl_clip;

	if (c == nullptr)
		return nullptr;
	acl::track_array_qvvf list(c->alloc, joints);
	for (uint32_t j = 0; j < joints; j++) {
		acl::track_desc_transformf desc;

		desc.output_index = j;
		desc.parent_index = parents[j] < 0 ? acl::k_invalid_track_index : (uint32_t)parents[j];
		desc.precision = precision;
		desc.shell_distance = shell_distance;
		acl::track_qvvf track =
			acl::track_qvvf::make_reserve(desc, c->alloc, frame_count, (float)rate);
		for (uint32_t f = 0; f < frame_count; f++) {
			const float *x = frames + ((size_t)f * joints + j) * 10;

			track[f] = rtm::qvv_set(
				rtm::quat_normalize(rtm::quat_set(x[3], x[4], x[5], x[6])),
				rtm::vector_set(x[0], x[1], x[2]), rtm::vector_set(x[7], x[8], x[9]));
		}
		list[j] = std::move(track);
	}

	acl::compression_settings settings = acl::get_default_compression_settings();
	acl::qvvf_transform_error_metric metric;
	acl::output_stats stats;

	settings.error_metric = &metric;
	if (acl::compress_track_list(c->alloc, list, settings, c->tracks, stats).any() ||
	    !c->ctx.initialize(*c->tracks)) {
		acl_clip_free(c);
		return nullptr;
	}
	return c;
}

extern "C" size_t acl_clip_bytes(const struct acl_clip *c)
{
	return c->tracks->get_size();
}

extern "C" void acl_clip_sample(struct acl_clip *c, float seconds, float *out)
{
	c->writer.out = out;
	c->ctx.seek(seconds, acl::sample_rounding_policy::none);
	c->ctx.decompress_tracks(c->writer);
}

extern "C" void acl_clip_free(struct acl_clip *c)
{
	if (c == nullptr)
		return;
	if (c->tracks != nullptr)
		c->alloc.deallocate(c->tracks, c->tracks->get_size());
	delete c;
}
