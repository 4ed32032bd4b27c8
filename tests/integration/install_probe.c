/*
 * install_probe.c - built by test_install.sh against an installed
 * libanimclient through pkg-config (shared and --static): prints the
 * library's version, and with a socket the server it connected to and how
 * many assets it serves.  Nothing but the installed header.
 */
#include <animclient.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	animc_client *c;
	animc_asset_list *list;
	int rc;

	printf("version %s header %d.%d.%d\n", animc_version(), ANIMC_VERSION_MAJOR,
	       ANIMC_VERSION_MINOR, ANIMC_VERSION_PATCH);
	if (argc < 2)
		return 0;
	rc = animc_client_new(&c);
	if (rc == 0)
		rc = animc_client_connect(c, argv[1], 5000);
	if (rc == 0)
		rc = animc_assets_list(c, &list);
	if (rc < 0) {
		fprintf(stderr, "install_probe: %s: %s\n", argv[1], animc_strerror(rc));
		return 1;
	}
	printf("server %s assets %zu\n", animc_client_server(c), list->count);
	animc_free(list);
	animc_client_close(c);
	return 0;
}
