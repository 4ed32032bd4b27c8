/* sample_pose.c - one pose of the demo walker, evaluated by animd without playing
 * it: each joint's name, parent and model-space position.  Usage: sample_pose [SOCKET] */
#include <animclient.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	animc_client *c = NULL;
	animc_sample_opts o = { 0 };
	animc_pose *p;
	const char *msg = "";
	int rc;

	o.asset = "walker.md5anim";
	o.mesh = "walker.md5mesh";
	o.time = 0.5;                   /* seconds of playback */
	o.space = ANIMC_SPACE_MODEL;
	if ((rc = animc_client_new(&c)) < 0 ||
	    (rc = animc_client_connect(c, argc > 1 ? argv[1] : NULL, 2000)) < 0 ||
	    (rc = animc_sample(c, &o, &p)) < 0) {
		animc_client_error(c, NULL, &msg);      /* what failed, or animd's reason */
		fprintf(stderr, "sample_pose: %s\n", *msg ? msg : animc_strerror(rc));
		animc_client_close(c);
		return 1;
	}
	printf("%s at %.2f s (clip time %.2f s)\n", p->asset, p->time, p->clip_time);
	for (size_t i = 0; i < p->joint_count; i++) {
		const animc_joint_pose *j = &p->joints[i];

		printf("%-8s parent %2d  at %7.2f %7.2f %7.2f\n", j->name, (int)j->parent,
		       j->m[3], j->m[7], j->m[11]);
	}
	animc_free(p);
	animc_client_close(c);
	return 0;
}
