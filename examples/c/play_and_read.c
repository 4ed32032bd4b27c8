/* play_and_read.c - play the demo walker into a pose stream and print joint 0's
 * position in the first five poses animd publishes.  Usage: play_and_read [SOCKET] */
#include <animclient.h>
#include <errno.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	animc_client *c = NULL;
	animc_instance *walk = NULL;
	animc_stream_opts so = ANIMC_STREAM_OPTS_INIT;  /* model space: 12 floats a joint */
	animc_play_opts po = ANIMC_PLAY_OPTS_INIT;
	float pose[256 * 12];                           /* the stream's default 256 joints */
	animc_pose_info info;
	const char *msg;
	int rc, n = 0;

	po.asset = "walker.md5anim";
	po.mesh = "walker.md5mesh";                     /* its skeleton's bind pose */
	if ((rc = animc_client_new(&c)) == 0 &&         /* NULL socket: $ANIMD_SOCKET */
	    (rc = animc_client_connect(c, argc > 1 ? argv[1] : NULL, 2000)) == 0 &&
	    (rc = animc_stream_open(c, &so, &po.stream)) == 0)  /* play publishes into it */
		rc = animc_play(c, &po, &walk);
	while (rc >= 0 && n < 5) {
		rc = animc_stream_next(po.stream, walk->id, pose, 256 * 12, &info, NULL);
		if (rc == -ENODATA)     /* no newer pose yet: wait 10 ms */
			rc = animc_client_wait(c, 10);
		else if (rc == 0)       /* a joint is a row-major 3x4 matrix: column 3 */
			printf("pose %d  t %.3f s  joint 0 at %.2f %.2f %.2f\n", n++,
			       info.clip_time, pose[3], pose[7], pose[11]);
	}
	if (rc < 0) {
		animc_client_error(c, NULL, &msg);      /* what failed, or animd's reason */
		fprintf(stderr, "play_and_read: %s\n", *msg ? msg : animc_strerror(rc));
	}
	animc_free(walk);
	animc_client_close(c);          /* closes the stream too; animd ends the instance */
	return rc < 0;
}
