/* print.c - instance states and events, as a line of text or of JSON. */
#include "client/animctl/animctl.h"

#include <inttypes.h>

const char *print_noun(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

void print_instance_json(struct json *j, const animc_instance *in)
{
	print_instance_json_open(j, in);
	json_obj_end(j);
}

void print_instance_json_open(struct json *j, const animc_instance *in)
{
	json_obj(j);
	json_kuint(j, "instance", in->id);
	json_kstr(j, "asset", in->asset);
	json_kstr(j, "clip", in->clip);
	json_kstr(j, "mesh", in->mesh);
	json_kstr(j, "state", in->state_name);
	json_knum(j, "time", in->time);
	json_knum(j, "clip_time", in->clip_time);
	json_knum(j, "duration", in->duration);
	json_knum(j, "speed", in->speed);
	json_kstr(j, "loop", animc_loop_name(in->loop));
	json_kstr(j, "root_motion", animc_root_motion_name(in->root_motion));
	json_kuint(j, "generation", in->generation);
	json_key(j, "layers");
	json_arr(j);
	for (size_t i = 0; i < in->layer_count; i++) {
		const animc_layer *l = &in->layers[i];

		json_obj(j);
		json_kuint(j, "layer", l->id);
		json_kstr(j, "mode", l->mode);
		json_kstr(j, "asset", l->asset);
		json_kstr(j, "clip", l->clip);
		json_knum(j, "weight", l->weight);
		json_knum(j, "target", l->target);
		json_knum(j, "fade_left", l->fade_left);
		json_kbool(j, "removing", l->removing);
		json_knum(j, "time", l->time);
		json_knum(j, "clip_time", l->clip_time);
		json_key(j, "mask");
		json_arr(j);
		for (size_t k = 0; k < l->mask_count; k++) {
			json_obj(j);
			json_kstr(j, "joint", l->mask_joints[k]);
			json_knum(j, "weight", l->mask_weights[k]);
			json_obj_end(j);
		}
		json_arr_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
	if (in->stream != 0) {
		json_kuint(j, "stream", in->stream);
		json_kint(j, "channel", in->channel);
	}
}

void print_instance(struct ctl *ctl, const animc_instance *in)
{
	if (ctl->json) {
		struct json j;

		json_begin(&j, stdout);
		print_instance_json(&j, in);
		json_end(&j);
		return;
	}
	print_instance_line(in);
	fflush(stdout);
}

void print_instance_line(const animc_instance *in)
{
	printf("instance %" PRIu64 " %s  %s", in->id,
	       in->state_name ? escape_text(in->state_name) : "?", escape_text(in->asset));
	if (in->clip != NULL)
		printf(" clip %s", escape_text(in->clip));
	if (in->mesh != NULL)
		printf(" mesh %s", escape_text(in->mesh));
	printf("  time %.3f (clip %.3f of %.3f s)  speed %g  %s", in->time, in->clip_time,
	       in->duration, in->speed, animc_loop_name(in->loop) ? animc_loop_name(in->loop) : "");
	if (in->stream != 0)
		printf("  stream %" PRIu64 " channel %d", in->stream, in->channel);
	printf("\n");
	/* The stack, bottom-up, a line a layer. */
	for (size_t i = 0; i < in->layer_count; i++) {
		const animc_layer *l = &in->layers[i];

		printf("  layer %" PRIu32 " %s %s clip %s  weight %.3f", l->id,
		       l->mode ? escape_text(l->mode) : "?", escape_text(l->asset),
		       l->clip ? escape_text(l->clip) : "-", l->weight);
		if (l->fade_left > 0)
			printf(" -> %.3f in %.3f s", l->target, l->fade_left);
		if (l->removing)
			printf(" (removing)");
		printf("  clip %.3f", l->clip_time);
		for (size_t k = 0; k < l->mask_count; k++)
			printf("%s%s:%g", k == 0 ? "  mask " : ",", escape_text(l->mask_joints[k]),
			       l->mask_weights[k]);
		printf("\n");
	}
}

/* clip.event's own fields, as the protocol names them. */
static void print_clip_event_json(struct json *j, const animc_clip_event *ce)
{
	json_kuint(j, "event", ce->event);
	json_kstr(j, "id", ce->id);
	json_kuint(j, "data", ce->data);
	json_kuint(j, "bone", ce->bone);
	json_key(j, "joint");
	if (ce->joint >= 0)
		json_int(j, ce->joint);
	else
		json_null(j);
	json_key(j, "position");
	json_floats(j, ce->position, 3);
	json_knum(j, "playback_time", ce->playback_time);
	json_kint(j, "at_ns", ce->at_ns);
	json_kstr(j, "direction", ce->direction < 0 ? "backward" : "forward");
	json_kuint(j, "missed", ce->missed);
}

void print_event(struct ctl *ctl, const animc_event *ev)
{
	if (ctl->json) {
		struct json j;

		json_begin(&j, stdout);
		json_obj(&j);
		json_kstr(&j, "type", ev->name);
		if (ev->asset != NULL)
			json_kstr(&j, "asset", ev->asset);
		if (ev->instance != 0)
			json_kuint(&j, "instance", ev->instance);
		if (ev->clip != NULL)
			json_kstr(&j, "clip", ev->clip);
		if (ev->format != NULL)
			json_kstr(&j, "format", ev->format);
		if (ev->generation != 0)
			json_kuint(&j, "generation", ev->generation);
		if (ev->type == ANIMC_EVENT_LAYER_ENDED)
			json_kuint(&j, "layer", ev->layer);
		if (ev->type == ANIMC_EVENT_INSTANCE_ENDED || ev->type == ANIMC_EVENT_INSTANCE_STOPPED ||
		    ev->type == ANIMC_EVENT_INSTANCE_FADED || ev->type == ANIMC_EVENT_LAYER_ENDED ||
		    ev->type == ANIMC_EVENT_CLIP_EVENT)
			json_knum(&j, "time", ev->time);
		if (ev->clip_event != NULL)
			print_clip_event_json(&j, ev->clip_event);
		if (ev->message != NULL)
			json_kstr(&j, "message", ev->message);
		if (ev->type == ANIMC_EVENT_ASSET_ERROR)
			json_kbool(&j, "live", ev->live);
		if (ev->reason != NULL)
			json_kstr(&j, "reason", ev->reason);
		json_obj_end(&j);
		json_end(&j);
		return;
	}
	/* `type key=value ...`: a value that is not a plain word is quoted
	 * (escape_value), and reason and message always are. */
	printf("%s", escape_text(ev->name));
	if (ev->asset != NULL)
		printf(" asset=%s", escape_value(ev->asset));
	if (ev->instance != 0)
		printf(" instance=%" PRIu64, ev->instance);
	if (ev->clip != NULL)
		printf(" clip=%s", escape_value(ev->clip));
	if (ev->format != NULL)
		printf(" format=%s", escape_value(ev->format));
	if (ev->generation != 0)
		printf(" generation=%" PRIu64, ev->generation);
	if (ev->type == ANIMC_EVENT_LAYER_ENDED)
		printf(" layer=%" PRIu32, ev->layer);
	if (ev->clip_event != NULL) {
		const animc_clip_event *ce = ev->clip_event;

		printf(" event=%" PRIu32 " id=%s data=%" PRIu32 " bone=%" PRIu32, ce->event,
		       ce->id ? escape_value(ce->id) : "?", ce->data, ce->bone);
	}
	if (ev->type == ANIMC_EVENT_INSTANCE_ENDED || ev->type == ANIMC_EVENT_INSTANCE_STOPPED ||
	    ev->type == ANIMC_EVENT_INSTANCE_FADED || ev->type == ANIMC_EVENT_LAYER_ENDED ||
	    ev->type == ANIMC_EVENT_CLIP_EVENT)
		printf(" time=%.3f", ev->time);
	if (ev->clip_event != NULL) {
		printf(" playback_time=%.3f direction=%s", ev->clip_event->playback_time,
		       ev->clip_event->direction < 0 ? "backward" : "forward");
		if (ev->clip_event->missed > 0)
			printf(" missed=%" PRIu64, ev->clip_event->missed);
	}
	if (ev->type == ANIMC_EVENT_ASSET_ERROR)
		printf(" live=%s", ev->live ? "yes" : "no");
	if (ev->reason != NULL)
		printf(" reason=%s", escape_quoted(ev->reason));
	if (ev->message != NULL)
		printf(" message=%s", escape_quoted(ev->message));
	printf("\n");
	fflush(stdout);
}

void print_duration(char *buf, size_t size, double s)
{
	unsigned long v = s > 0 ? (unsigned long)s : 0;

	if (v >= 86400)
		snprintf(buf, size, "%lud%02luh%02lum", v / 86400, v / 3600 % 24, v / 60 % 60);
	else if (v >= 3600)
		snprintf(buf, size, "%luh%02lum%02lus", v / 3600, v / 60 % 60, v % 60);
	else if (v >= 60)
		snprintf(buf, size, "%lum%02lus", v / 60, v % 60);
	else
		snprintf(buf, size, "%.1fs", s > 0 ? s : 0);
}
