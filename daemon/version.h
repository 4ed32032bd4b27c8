#ifndef ANIMD_VERSION_H
#define ANIMD_VERSION_H

#define ANIMD_VERSION "0.1.0"

#endif
