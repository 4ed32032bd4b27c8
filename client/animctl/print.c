/* print.c - instance states and events, as a line of text or of JSON. */
#include "client/animctl/animctl.h"

#include <inttypes.h>

void print_instance_json(struct json *j, const animc_instance *in)
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
	if (in->stream != 0) {
		json_kuint(j, "stream", in->stream);
		json_kint(j, "channel", in->channel);
	}
	json_obj_end(j);
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
	fflush(stdout);
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
		if (ev->type == ANIMC_EVENT_INSTANCE_ENDED || ev->type == ANIMC_EVENT_INSTANCE_STOPPED)
			json_knum(&j, "time", ev->time);
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
	if (ev->type == ANIMC_EVENT_INSTANCE_ENDED || ev->type == ANIMC_EVENT_INSTANCE_STOPPED)
		printf(" time=%.3f", ev->time);
	if (ev->type == ANIMC_EVENT_ASSET_ERROR)
		printf(" live=%s", ev->live ? "yes" : "no");
	if (ev->reason != NULL)
		printf(" reason=%s", escape_quoted(ev->reason));
	if (ev->message != NULL)
		printf(" message=%s", escape_quoted(ev->message));
	printf("\n");
	fflush(stdout);
}
