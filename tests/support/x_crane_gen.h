/*
 * x_crane_gen.h - writes a small animated DirectX .x text file of our own:
 * a three-bone crane (base, boom, hook), a box skinned to each bone, and a
 * two-second looping swing (the base turns about Y, the boom nods about
 * Z, the hook's position follows a spline).  For the demo assets and tests.
 */
#ifndef ANIMD_TEST_X_CRANE_GEN_H
#define ANIMD_TEST_X_CRANE_GEN_H

#include <stdio.h>

/* 0, or -1 if a write failed. */
int x_crane_write(FILE *f);

#endif
