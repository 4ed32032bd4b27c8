/*
 * layer add|set|remove: an instance's layer stack, typed on `animctl play`'s
 * input (the connection that owns the instance) or run on its own (which
 * can only reach instances of its own connection, like pause and stop).
 */
#include "client/animctl/animctl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>


const char layer_help[] =
	"usage: animctl layer add INSTANCE [ASSET] [--clip NAME] [--weight W] [--fade S]\n"
	"                         [--mask JOINT[:W],...] [--additive [--ref CLIP[:T]]]\n"
	"                         [--speed S] [--start T] [--loop|--once|--pingpong]\n"
	"       animctl layer set INSTANCE LAYER WEIGHT [FADE]\n"
	"       animctl layer remove INSTANCE LAYER [FADE]\n"
	"Put a layer over an instance's clip, move its weight (over FADE seconds),\n"
	"remove it (fading out over FADE seconds).  An override layer (the default)\n"
	"blends each joint toward its clip by W; --additive adds its clip's\n"
	"difference from its first frame (or --ref CLIP at T seconds).  --mask limits\n"
	"it to the subtrees of the joints named, each with its weight (default 1).\n"
	"ASSET (default the instance's) must fit the instance's skeleton.\n"
	"Only the connection that started an instance may change it: type these on\n"
	"`animctl play`'s input, without INSTANCE (`layer add --clip wave`).\n";

int layer_parse_mask(char *list, const char **joints, double *weights, size_t *n)
{
	for (char *item = strtok(list, ","); item != NULL; item = strtok(NULL, ",")) {
		char *colon = strrchr(item, ':');
		double w = 1.0;

		if (*n == LAYER_MAX_MASK)
			return ctl_usage_error("layer", "at most %d mask joints", LAYER_MAX_MASK);
		if (colon != NULL && colon != item && ctl_is_number(colon + 1, &w))
			*colon = '\0';
		if (!(w >= 0 && w <= 1))
			return ctl_usage_error("layer", "a mask weight is 0 to 1, not %g", w);
		joints[*n] = item;
		weights[*n] = w;
		(*n)++;
	}
	return 0;
}

/* A usage error or --help: the exit code, for the caller to return. */
#define LAYER_EXIT(code) (*exit_now = (code), 0)

int ctl_layer(struct ctl *ctl, uint64_t instance, const char *verb, int argc, char **argv,
	      bool own, animc_instance **st, int *exit_now)
{
	const char *pos[4];
	int first = own ? 0 : 1;        /* pos[first] is the first after INSTANCE */
	int n, rc;

	*st = NULL;
	*exit_now = -1;
	if (strcmp(verb, "add") != 0 && strcmp(verb, "set") != 0 && strcmp(verb, "remove") != 0)
		return LAYER_EXIT(ctl_usage_error("layer", "add, set or remove, not %s",
						  escape_quoted(verb)));
	if (strcmp(verb, "add") == 0) {
		const char *clip = NULL, *weight = NULL, *fade = NULL, *mask = NULL, *additive = NULL,
			   *ref = NULL, *speed = NULL, *start = NULL, *loop = NULL, *once = NULL,
			   *pingpong = NULL;
		const struct ctl_opt opts[] = {
			{ "clip", true, &clip }, { "weight", true, &weight }, { "fade", true, &fade },
			{ "mask", true, &mask }, { "additive", false, &additive }, { "ref", true, &ref },
			{ "speed", true, &speed }, { "start", true, &start }, { "loop", false, &loop },
			{ "once", false, &once }, { "pingpong", false, &pingpong },
			{ NULL, false, NULL },
		};
		animc_layer_opts o = ANIMC_LAYER_OPTS_INIT;
		const char *joints[LAYER_MAX_MASK];
		double weights[LAYER_MAX_MASK];
		char *mask_copy = NULL, *ref_copy = NULL;
		uint32_t layer = 0;
		size_t nm = 0;

		n = ctl_args(ctl, argc, argv, opts, pos, first, first + 1, layer_help);
		if (n < 0)
			return LAYER_EXIT(ctl_args_exit(n));
		o.asset = n > first ? pos[first] : NULL;
		o.clip = clip;
		o.mode = additive != NULL ? ANIMC_LAYER_ADDITIVE : ANIMC_LAYER_OVERRIDE;
		if ((weight && ctl_number("layer", "--weight", weight, &o.weight) < 0) ||
		    (fade && ctl_number("layer", "--fade", fade, &o.fade) < 0) ||
		    (speed && ctl_number("layer", "--speed", speed, &o.speed) < 0) ||
		    (start && ctl_number("layer", "--start", start, &o.start) < 0))
			return LAYER_EXIT(EXIT_USAGE);
		if ((loop != NULL) + (once != NULL) + (pingpong != NULL) > 1)
			return LAYER_EXIT(ctl_usage_error("layer", "one of --loop, --once, --pingpong"));
		o.loop = loop ? ANIMC_LOOP_LOOP : once ? ANIMC_LOOP_ONCE
				: pingpong ? ANIMC_LOOP_PINGPONG : ANIMC_LOOP_DEFAULT;
		if (ref != NULL && additive == NULL)
			return LAYER_EXIT(ctl_usage_error("layer", "--ref goes with --additive"));
		if (mask != NULL) {
			mask_copy = strdup(mask);
			if (mask_copy == NULL)
				return -ENOMEM;
			rc = layer_parse_mask(mask_copy, joints, weights, &nm);
			if (rc != 0) {
				free(mask_copy);
				return LAYER_EXIT(rc);
			}
			o.mask_count = nm;
			o.mask_joints = joints;
			o.mask_weights = weights;
		}
		if (ref != NULL) {
			char *colon;

			ref_copy = strdup(ref);
			if (ref_copy == NULL) {
				free(mask_copy);
				return -ENOMEM;
			}
			colon = strrchr(ref_copy, ':');
			if (colon != NULL && colon != ref_copy &&
			    ctl_is_number(colon + 1, &o.reference_time))
				*colon = '\0';
			o.reference_clip = ref_copy;
		}
		rc = animc_layer_add(ctl->c, instance, &o, &layer, st);
		free(mask_copy);
		free(ref_copy);
		if (rc == 0 && !ctl->json)
			printf("layer %" PRIu32 "\n", layer);
		return rc < 0 ? rc : 0;
	}
	{
		bool set = strcmp(verb, "set") == 0;
		uint64_t layer;
		double weight = 0, fade = 0;

		n = ctl_args(ctl, argc, argv, NULL, pos, first + (set ? 2 : 1), first + (set ? 3 : 2),
			     layer_help);
		if (n < 0)
			return LAYER_EXIT(ctl_args_exit(n));
		if (ctl_uint("layer", "LAYER", pos[first], &layer) < 0 || layer > UINT32_MAX ||
		    (set && ctl_number("layer", "WEIGHT", pos[first + 1], &weight) < 0) ||
		    (n > first + 1 + set &&
		     ctl_number("layer", "FADE", pos[first + 1 + set], &fade) < 0))
			return LAYER_EXIT(EXIT_USAGE);
		return set ? animc_layer_set(ctl->c, instance, (uint32_t)layer, weight, fade, st)
			   : animc_layer_remove(ctl->c, instance, (uint32_t)layer, fade, st);
	}
}

int cmd_layer(struct ctl *ctl, int argc, char **argv)
{
	const char *verb = argc > 1 ? argv[1] : NULL;
	animc_instance *st = NULL;
	char **args;
	uint64_t id;
	int rc, exit_now;

	if (verb == NULL)
		return ctl_usage_error("layer", "add, set or remove");
	if (strcmp(verb, "--help") == 0 || strcmp(verb, "-h") == 0) {
		fputs(layer_help, stdout);
		return EXIT_OK;
	}
	if (argc >= 3 && strcmp(argv[2], "--help") == 0) {
		fputs(layer_help, stdout);
		return EXIT_OK;
	}
	if (argc < 3)
		return ctl_usage_error("layer", "missing INSTANCE");
	if (ctl_uint("layer", "INSTANCE", argv[2], &id) < 0)
		return EXIT_USAGE;
	/* The verb's arguments as a command line of its own: "layer" INSTANCE ... */
	args = calloc((size_t)argc, sizeof *args);
	if (args == NULL)
		return EXIT_FAILURE_OTHER;
	args[0] = argv[0];
	for (int i = 2; i < argc; i++)
		args[i - 1] = argv[i];
	if ((rc = ctl_connect(ctl)) != 0) {
		free(args);
		return rc;
	}
	rc = ctl_layer(ctl, id, verb, argc - 1, args, false, &st, &exit_now);
	free(args);
	if (exit_now >= 0)
		return exit_now;
	if (rc < 0) {
		animc_error_code code = animc_client_error(ctl->c, NULL, NULL);
		int ex = ctl_fail(ctl, NULL, rc);

		if (code == ANIMC_ERR_NOT_FOUND && !ctl->json)
			fprintf(stderr, "animctl layer: hint: instances belong to the connection that "
				"started them; type `layer %s ...` on the input of the `animctl play` "
				"that started it\n", verb);
		return ex;
	}
	print_instance(ctl, st);
	animc_free(st);
	return EXIT_OK;
}
