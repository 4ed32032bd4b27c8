#ifndef ANIMD_VERSION_H
#define ANIMD_VERSION_H

/* The one version of animd, animctl, libanimclient and the packages is the
 * top-level VERSION file; the Makefile passes it to every compilation as
 * -DANIMD_VERSION="X.Y.Z" (and checks that client/animclient.h's
 * ANIMC_VERSION_* macros, the copy a client's compiler sees, say the same). */
#ifndef ANIMD_VERSION
#error "ANIMD_VERSION comes from the top-level VERSION file: build with make"
#endif

#endif
