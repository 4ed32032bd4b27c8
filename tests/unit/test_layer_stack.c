/*
 * test_layer_stack.c - an instance's layer stack (daemon/service/playback/
 * layers.c) without the daemon: the order fades and layers take, weights
 * running over a fade and restarting from where they are, the stack applied
 * to a pose against hand-computed values, a finished fade promoted to the
 * base, removal with and without a fade, pause and resume, and rebinding on
 * reload.  The live behaviour through a stream is tests/integration/
 * test_layers.c's.
 *
 * The asset is a small .x file: Root > Spine > Arm, three clips of one
 * second whose keys move each joint's translation linearly, so every
 * expected value is a line of arithmetic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/anim/clip.h"
#include "daemon/assets/asset.h"
#include "daemon/service/base/clock.h"
#include "daemon/service/playback/instances.h"
#include "daemon/service/playback/layers.h"

#define S 1000000000LL
#define T0 (1000 * S)   /* the test's clock: far from 0, like a real one */

/* A joint's translation key pair over one second: (x0, y0, z0) -> (x1, y1, z1). */
#define KEYS(x0, y0, z0, x1, y1, z1) \
	"  AnimationKey { 2; 2; 0; 3; " #x0 "," #y0 "," #z0 ";;, 30; 3; " \
	#x1 "," #y1 "," #z1 ";;; }\n"
#define ANIM(frame, keys) " Animation { { " frame " }\n" keys " }\n"

static const char stack_x[] =
	"xof 0303txt 0032\n"
	"AnimTicksPerSecond { 30; }\n"
	"Frame Root { FrameTransformMatrix { 1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1;; }\n"
	" Frame Spine { FrameTransformMatrix { 1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1;; }\n"
	"  Frame Arm { FrameTransformMatrix { 1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1;; } }\n"
	" }\n"
	"}\n"
	"AnimationSet Walk {\n"
	ANIM("Root", KEYS(0, 0, 0, 10, 0, 0))
	ANIM("Spine", KEYS(0, 0, 0, 0, 2, 0))
	ANIM("Arm", KEYS(0, 0, 0, 0, 0, 4))
	"}\n"
	"AnimationSet Run {\n"
	ANIM("Root", KEYS(100, 0, 0, 110, 0, 0))
	ANIM("Spine", KEYS(0, 20, 0, 0, 22, 0))
	ANIM("Arm", KEYS(0, 0, 40, 0, 0, 44))
	"}\n"
	"AnimationSet Wave {\n"
	ANIM("Root", KEYS(-50, 0, 0, -50, 0, 0))
	ANIM("Spine", KEYS(0, -8, 0, 0, -8, 0))
	ANIM("Arm", KEYS(0, 0, 0, 0, 0, 30))
	"}\n";

struct fixture {
	struct asset *asset;
	struct instance in;
	struct transform pose[3], scratch[3];
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof *fx);
	char err[256];

	if (fx == NULL)
		return -1;
	if (asset_load_buffer("stack.x", stack_x, strlen(stack_x), &fx->asset, err,
			      sizeof err) != 0) {
		print_error("stack.x: %s\n", err);
		free(fx);
		return -1;
	}
	fx->in.asset = fx->asset;       /* the instance's reference is the load's */
	fx->in.asset_name = strdup("stack.x");
	fx->in.clip_name = strdup("Walk");
	fx->in.clip = asset_find_clip(fx->asset, "Walk");
	fx->in.loop = LOOP_LOOP;
	if (fx->in.asset_name == NULL || fx->in.clip_name == NULL || fx->in.clip == NULL)
		return -1;
	playback_start(&fx->in.clock, T0, 0, 1.0);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	layers_free_all(&fx->in);
	asset_unref(fx->in.asset);
	free(fx->in.asset_name);
	free(fx->in.clip_name);
	free(fx);
	return 0;
}

static const struct clip *clip_named(struct fixture *fx, const char *name)
{
	const struct clip *c = asset_find_clip(fx->asset, name);

	assert_non_null(c);
	return c;
}

/* A layer of clip `name` pinned to the test's clock: its clip starts at T0
 * and its fade (if any) runs over [T0, T0 + fade_ns]. */
static struct layer *push(struct fixture *fx, enum layer_mode mode, const char *name, float weight,
			  int64_t fade_ns, uint32_t mask_root)
{
	uint32_t roots[1] = { mask_root }, id;
	struct layer_spec spec = {
		.mode = mode,
		.asset_name = "stack.x",
		.asset = fx->asset,
		.generation = 1,
		.clip = clip_named(fx, name),
		.loop = LOOP_LOOP,
		.speed = 1.0,
		.weight = weight,
		.fade_ns = fade_ns,
		.mask_count = mask_root != UINT32_MAX ? 1 : 0,
		.mask_roots = roots,
	};
	struct layer *l;

	assert_int_equal(layers_push(&fx->in, &spec, &id), 0);
	l = layers_find(&fx->in, id);
	assert_non_null(l);
	playback_start(&l->clock, T0, 0, 1.0);
	if (fade_ns > 0) {
		l->fade_start_ns = T0;
		l->fade_end_ns = T0 + fade_ns;
	}
	return l;
}

/* The instance's pose at clock `now`: its base clip, then the stack. */
static void evaluate(struct fixture *fx, int64_t now)
{
	int64_t t = playback_time(&fx->in.clock, now);
	struct clip_time ct = clip_map_time(fx->in.clip, t, fx->in.loop);

	clip_sample_at(fx->in.clip, ct.t_ns, t, fx->pose);
	layers_apply(&fx->in, now, fx->pose, fx->scratch);
}

static void assert_t(const struct transform *x, double tx, double ty, double tz)
{
	if (fabs(x->t.x - tx) > 1e-4 || fabs(x->t.y - ty) > 1e-4 || fabs(x->t.z - tz) > 1e-4)
		fail_msg("translation (%g, %g, %g), want (%g, %g, %g)", x->t.x, x->t.y, x->t.z,
			 tx, ty, tz);
}

static void test_weight_runs_linearly(void **state)
{
	struct fixture *fx = *state;
	struct layer *l = push(fx, LAYER_OVERRIDE, "Run", 0.8f, 2 * S, UINT32_MAX);

	assert_true(l->fading);
	assert_true(layers_weight_at(l, T0 - S) == 0.0f);
	assert_true(fabsf(layers_weight_at(l, T0 + S / 2) - 0.2f) < 1e-6f);
	assert_true(fabsf(layers_weight_at(l, T0 + S) - 0.4f) < 1e-6f);
	assert_true(layers_weight_at(l, T0 + 2 * S) == 0.8f);
	assert_true(layers_weight_at(l, T0 + 9 * S) == 0.8f);
	assert_true(layers_next_deadline(&fx->in) == T0 + 2 * S);
}

/* Fades sit below the added layers in the order they began, whenever
 * they are pushed. */
static void test_fades_go_below_layers(void **state)
{
	struct fixture *fx = *state;
	struct layer *wave = push(fx, LAYER_OVERRIDE, "Wave", 1.0f, 0, UINT32_MAX);
	struct layer *f1 = push(fx, LAYER_FADE, "Run", 1.0f, S, UINT32_MAX);
	struct layer *f2 = push(fx, LAYER_FADE, "Walk", 1.0f, S, UINT32_MAX);

	assert_int_equal(fx->in.layer_count, 3);
	assert_int_equal(fx->in.fade_count, 2);
	assert_ptr_equal(fx->in.layers[0], f1);
	assert_ptr_equal(fx->in.layers[1], f2);
	assert_ptr_equal(fx->in.layers[2], wave);
	assert_int_not_equal(f1->id, f2->id);
	assert_int_not_equal(f1->id, wave->id);
}

/*
 * Walk at 0.25 s fading to Run (quarter-way), with Wave over the Spine
 * subtree at weight 0.5 on top:
 *   Root  = lerp(2.5, 102.5, 0.25) = 27.5 (the mask leaves it out)
 *   Spine = lerp(lerp(0.5, 20.5, 0.25), -8, 0.5) in y = (5.5 - 8) / 2 = -1.25
 *   Arm   = lerp(lerp(1, 41, 0.25), 7.5, 0.5) in z = (11 + 7.5) / 2 = 9.25
 */
static void test_stack_applies_bottom_up(void **state)
{
	struct fixture *fx = *state;

	push(fx, LAYER_OVERRIDE, "Wave", 0.5f, 0, 1);
	push(fx, LAYER_FADE, "Run", 1.0f, S, UINT32_MAX);
	evaluate(fx, T0 + S / 4);
	assert_t(&fx->pose[0], 27.5, 0, 0);
	assert_t(&fx->pose[1], 0, -1.25, 0);
	assert_t(&fx->pose[2], 0, 0, 9.25);
	/* The fade's start is the base exactly, and its end the new clip. */
	fx->in.layers[1]->to = 0.0f;    /* Wave off */
	evaluate(fx, T0);
	assert_t(&fx->pose[0], 0, 0, 0);
	assert_t(&fx->pose[1], 0, 0, 0);
	evaluate(fx, T0 + S);
	assert_t(&fx->pose[0], 100, 0, 0);
	assert_t(&fx->pose[1], 0, 20, 0);
	assert_t(&fx->pose[2], 0, 0, 40);
}

/* An additive layer adds its clip's motion from its first frame: Wave's
 * Arm moves 0 -> 30 in z, so at 0.5 s and weight 0.5 it adds 7.5; Root and
 * Spine do not move in Wave, so they stay Walk's. */
static void test_additive_adds_motion(void **state)
{
	struct fixture *fx = *state;
	struct layer *l = push(fx, LAYER_ADDITIVE, "Wave", 0.5f, 0, UINT32_MAX);

	assert_non_null(l->ref);
	evaluate(fx, T0 + S / 2);
	assert_t(&fx->pose[0], 5, 0, 0);
	assert_t(&fx->pose[1], 0, 1, 0);
	assert_t(&fx->pose[2], 0, 0, 2 + 7.5);
}

/* A new weight (or a fade out) starts from the weight on screen: here a
 * fade 0 -> 1 half-way through on the daemon's clock. */
static void test_set_weight_starts_where_it_is(void **state)
{
	struct fixture *fx = *state;
	struct layer *l = push(fx, LAYER_OVERRIDE, "Run", 1.0f, 0, UINT32_MAX);
	int64_t began = clock_now_ns() - S / 2;

	l->from = 0.0f;
	l->fading = true;
	l->fade_start_ns = began;
	l->fade_end_ns = began + S;
	layers_set_weight(l, 0.25f, S);
	/* At least half-way (the clock moved on a little since). */
	assert_true(l->from >= 0.5f && l->from < 0.9f);
	assert_true(l->to == 0.25f);
	assert_true(l->fading);
	assert_true(layers_weight_at(l, l->fade_start_ns) == l->from);
	assert_true(layers_weight_at(l, l->fade_start_ns + S) == 0.25f);
	/* Without a fade: at once. */
	layers_set_weight(l, 0.75f, 0);
	assert_false(l->fading);
	assert_true(layers_weight_at(l, began) == 0.75f);
}

static void test_remove(void **state)
{
	struct fixture *fx = *state;
	struct layer *a = push(fx, LAYER_OVERRIDE, "Run", 0.5f, 0, UINT32_MAX);
	struct layer *b = push(fx, LAYER_OVERRIDE, "Wave", 1.0f, 0, UINT32_MAX);
	uint32_t b_id = b->id;

	/* With a fade: stays, marked, its weight running down to 0. */
	layers_remove(&fx->in, a, S);
	assert_int_equal(fx->in.layer_count, 2);
	assert_true(a->removing);
	assert_true(a->to == 0.0f);
	assert_true(layers_weight_at(a, a->fade_end_ns) == 0.0f);
	/* Without: gone at once, the others kept in order. */
	layers_remove(&fx->in, b, 0);
	assert_int_equal(fx->in.layer_count, 1);
	assert_ptr_equal(fx->in.layers[0], a);
	assert_null(layers_find(&fx->in, b_id));
}

/* A fade that reached 1 becomes the base: the instance plays its clip on
 * its clock, and it and the fades below it leave the stack; layers above
 * stay. */
static void test_promote(void **state)
{
	struct fixture *fx = *state;
	struct layer *wave;

	push(fx, LAYER_FADE, "Wave", 1.0f, S, UINT32_MAX);
	push(fx, LAYER_FADE, "Run", 1.0f, S, UINT32_MAX);
	wave = push(fx, LAYER_OVERRIDE, "Wave", 0.0f, 0, UINT32_MAX);
	playback_seek(&fx->in.layers[1]->clock, T0, S / 2);
	layers_promote(&fx->in, 1);
	assert_int_equal(fx->in.layer_count, 1);
	assert_int_equal(fx->in.fade_count, 0);
	assert_ptr_equal(fx->in.layers[0], wave);
	assert_string_equal(fx->in.clip_name, "Run");
	assert_ptr_equal(fx->in.clip, clip_named(fx, "Run"));
	/* Run's clock came along: half a second in at T0. */
	evaluate(fx, T0 + S / 10);
	assert_t(&fx->pose[0], 106, 0, 0);
}

static void test_pause_moves_layer_clocks(void **state)
{
	struct fixture *fx = *state;
	struct layer *l = push(fx, LAYER_OVERRIDE, "Run", 1.0f, 0, UINT32_MAX);

	layers_pause(&fx->in, T0 + S / 4);
	assert_true(playback_time(&l->clock, T0 + 5 * S) == S / 4);
	layers_resume(&fx->in, T0 + 5 * S);
	assert_true(playback_time(&l->clock, T0 + 5 * S + S / 4) == S / 2);
}

/* On reload a stack survives when every clip it names is still there,
 * and fails with the stable code when one is gone. */
static void test_rebind(void **state)
{
	static const char no_wave[] =
		"xof 0303txt 0032\n"
		"AnimTicksPerSecond { 30; }\n"
		"Frame Root { Frame Spine { Frame Arm { } } }\n"
		"AnimationSet Walk {\n" ANIM("Root", KEYS(0, 0, 0, 1, 0, 0)) "}\n"
		"AnimationSet Run {\n" ANIM("Root", KEYS(0, 0, 0, 2, 0, 0)) "}\n";
	struct fixture *fx = *state;
	struct asset *next;
	const char *code = NULL;
	char err[256], message[256];
	struct layer *run = push(fx, LAYER_OVERRIDE, "Run", 1.0f, 0, UINT32_MAX);

	push(fx, LAYER_ADDITIVE, "Wave", 1.0f, 0, UINT32_MAX);
	assert_true(layers_use(&fx->in, "stack.x"));
	assert_false(layers_use(&fx->in, "other.x"));
	assert_int_equal(asset_load_buffer("stack.x", no_wave, strlen(no_wave), &next, err,
					   sizeof err), 0);
	assert_int_equal(layers_rebind(&fx->in, "stack.x", next, 2, &code, message,
				       sizeof message), -1);
	assert_string_equal(code, "clip_removed");
	assert_non_null(strstr(message, "Wave"));
	/* Nothing was swapped. */
	assert_ptr_equal(run->clip, clip_named(fx, "Run"));
	assert_true(run->generation == 1);
	/* Without the Wave layer it fits, and the layer plays the new clip. */
	layers_drop(&fx->in, 1);
	code = NULL;
	assert_int_equal(layers_rebind(&fx->in, "stack.x", next, 2, &code, message,
				       sizeof message), 0);
	assert_ptr_equal(run->clip, asset_find_clip(next, "Run"));
	assert_true(run->generation == 2);
	assert_true(layers_rebind(&fx->in, "stack.x", NULL, 3, &code, message,
				  sizeof message) == -1);
	assert_string_equal(code, "asset_removed");
	asset_unref(next);      /* the layer holds its own reference */
}

/* Bytes: the layer records, their names, masks and reference poses. */
static void test_bytes(void **state)
{
	struct fixture *fx = *state;
	uint64_t empty = layers_bytes(&fx->in);
	uint64_t one, two;

	assert_true(empty == 0);
	push(fx, LAYER_OVERRIDE, "Run", 1.0f, 0, UINT32_MAX);
	one = layers_bytes(&fx->in);
	assert_true(one >= sizeof(struct layer) + sizeof(struct layer *) + strlen("stack.x") + 4);
	push(fx, LAYER_ADDITIVE, "Wave", 1.0f, 0, 1);
	two = layers_bytes(&fx->in);
	/* The second adds its reference pose and its mask over 3 joints. */
	assert_true(two - one >= sizeof(struct layer) + 3 * sizeof(struct transform) +
				 3 * sizeof(float));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_weight_runs_linearly, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fades_go_below_layers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_applies_bottom_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_additive_adds_motion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_weight_starts_where_it_is, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove, setup, teardown),
		cmocka_unit_test_setup_teardown(test_promote, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pause_moves_layer_clocks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rebind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bytes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
