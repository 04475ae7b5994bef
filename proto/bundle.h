/* bundle — the scenario's files as shipped in a StartRun: packed by the
 * console from the script's folder, unpacked by the agent into its run
 * folder. Both sides see the same path rules and limits here.
 *
 * Packing (bundle_pack): every regular file under the script's folder, to a
 * depth of 8 folders, except names starting with '.' and results the folder
 * may hold (*.db, *.db-wal, *.db-shm, *.log). Symbolic links that lead
 * inside the folder are followed: a link to a file ships the file's bytes
 * under the link's name, a link to a folder ships that folder's files, a
 * dangling link is skipped; a link that leads out of the folder is an error
 * naming it and its target (nothing of the host outside the folder is ever
 * shipped, loot -> /etc/shadow). A path longer
 * than BUNDLE_PATH_MAX is skipped; more than BUNDLE_MAX_FILES files or
 * BUNDLE_MAX_BYTES bytes is an error.
 *
 * Unpacking (bundle_unpack): paths come from the network: anything
 * absolute, with "..", "." or empty components, or a backslash is refused
 * (bundle_path_ok), every file and folder is made relative to the
 * descriptor of the folder before it (openat, mkdirat), files with
 * O_EXCL|O_NOFOLLOW and folders opened with O_NOFOLLOW, so a link planted
 * there is never followed, and the total size is bounded. The folder to
 * write into is the caller's descriptor (the agent's run folder,
 * agent/rundir.h).
 *
 * Usage:
 *     bundle b;
 *     if (bundle_pack("scen/test.lua", &b, err, sizeof(err)) != 0) ...
 *     sr.files = b.files; sr.n_files = b.nfiles; sr.script_name = b.script_name;
 *     bundle_free(&b);
 * and on the other side:
 *     if (bundle_unpack(sr->files, sr->n_files, dirfd, err, sizeof(err)) != 0) ... */
#ifndef QUERN_BUNDLE_H
#define QUERN_BUNDLE_H

#include <stddef.h>

#include "proto/quern.pb-c.h"

/** Most bytes a bundle may hold, all files together. */
#define BUNDLE_MAX_BYTES (15u * 1024u * 1024u)
/** Most files a bundle may hold. */
#define BUNDLE_MAX_FILES 10000
/** Longest relative path. */
#define BUNDLE_PATH_MAX 1024
/** Deepest folder packed under the script's folder. */
#define BUNDLE_DEPTH_MAX 8

/** A packed scenario folder. */
typedef struct bundle {
    Quern__BundleFile **files; /**< owned: nfiles files, each with its path and data owned */
    size_t nfiles;
    size_t bytes;          /**< all files' data together */
    char script_name[256]; /**< the script's file name, relative to the folder */
} bundle;

/** 1 if path is a safe relative bundle path (see above), else 0. */
int bundle_path_ok(const char *path);

/** Adds a file made for the bundle (path relative to the script's folder,
 *  len bytes of data copied), replacing one of the same path: the
 *  descriptor sets the console compiles from a script's .proto files
 *  (worker/lgrpc.h). Returns 0, or -1 with err set (a path bundle_path_ok
 *  refuses, the limits) and b unchanged. */
int bundle_add(bundle *b, const char *path, const void *data, size_t len, char *err, size_t errlen);

/** Packs the folder of script (see above) into b. Returns 0, or -1 with err
 *  set and b empty. */
int bundle_pack(const char *script, bundle *b, char *err, size_t errlen);

/** Frees what bundle_pack put in b and empties it; fine on an empty bundle. */
void bundle_free(bundle *b);

/** Checks the n files against the path rules and the limits, without
 *  writing anything. Returns 0, or -1 with err set. */
int bundle_check(Quern__BundleFile *const *files, size_t n, char *err, size_t errlen);

/** Checks the n files (bundle_check), then writes them under the folder
 *  of dirfd (borrowed, an open folder), following no symbolic link.
 *  Returns 0, or -1 with err set; files already written stay (the caller
 *  removes its folder). */
int bundle_unpack(Quern__BundleFile *const *files, size_t n, int dirfd, char *err, size_t errlen);

#endif
