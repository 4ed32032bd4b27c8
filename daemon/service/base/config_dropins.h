/*
 * config_dropins.h - the drop-in folder of a configuration file: FILE.d/
 * beside FILE (/etc/animd/animd.ini.d/ for /etc/animd/animd.ini), as
 * systemd (journald.conf.d/) and PipeWire (pipewire.conf.d/) name theirs.
 * The package owns the main file; the administrator's settings go into
 * drop-ins, which an upgrade never touches.
 *
 * A drop-in is an entry of that folder whose name ends in ".ini" and does
 * not start with '.' (editors' and package managers' leftovers such as
 * ".x.ini.swp" or "x.ini.dpkg-old" are not read).  They are read in byte
 * order of their names (strcmp: the C locale, whatever the environment
 * says), so "10-limits.ini" comes before "20-log.ini" everywhere.
 */
#ifndef ANIMD_CONFIG_DROPINS_H
#define ANIMD_CONFIG_DROPINS_H

#include <stddef.h>

/* The folder's name is the file's with this added. */
#define CONFIG_DROPINS_SUFFIX ".d"
/* More drop-ins than this is refused rather than read. */
#define CONFIG_DROPINS_MAX 128

struct config_dropins {
	char **paths;                   /* "FILE.d/NAME.ini", in order */
	size_t count;
};

/*
 * List the drop-ins of the configuration file `file` (which need not
 * exist) into out, which config_dropins_free() releases (also after a
 * failure).  A missing folder means none.  Entries are not opened: one that
 * is not a regular file fails when it is read.  Returns 0, or a negative
 * errno with err saying which folder and why: the folder cannot be read
 * (-EACCES, -ENOTDIR, ...), holds more than CONFIG_DROPINS_MAX drop-ins
 * (-E2BIG), a drop-in whose name holds a control character (-EINVAL: it
 * could not be named in a message or a log line), a path too long
 * (-ENAMETOOLONG), or -ENOMEM.
 */
int config_dropins_list(const char *file, struct config_dropins *out, char *err, size_t errlen);

/* Release what config_dropins_list() gave; leaves an empty list.  Accepts
 * an empty or zeroed list. */
void config_dropins_free(struct config_dropins *d);

#endif
