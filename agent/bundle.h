/* bundle — the scenario's files as shipped in a StartRun, on the agent's disk.
 *
 * What it is for: the console sends every file of the scenario's folder; the
 * agent writes them into a private directory per run (mkdtemp, mode 0700),
 * runs the workers from there, and removes it afterwards. Paths come from
 * the network: anything absolute, with "..", "." or empty components, or a
 * backslash is refused, files are created with O_EXCL|O_NOFOLLOW, and the
 * total size is bounded.
 *
 * The folders are $TMPDIR/quern-run.XXXXXX (/tmp without TMPDIR). An agent
 * holds a lock on its run's folder (bundle_hold) for as long as it uses it,
 * and marks the folder as held that way (a BUNDLE_HELD file, made once the
 * lock is taken); an agent killed with SIGKILL cannot remove its folder, so
 * every agent removes, when it starts, the marked folders of its user that
 * nobody holds (bundle_sweep): the script and its CSV data do not stay on
 * disk. A folder without the mark (being made, or an agent of an older
 * version that takes no lock) is never touched. */
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

/** 1 if path is a safe relative bundle path (see above), else 0. */
int bundle_path_ok(const char *path);

/** Creates a fresh private directory under $TMPDIR (or /tmp) and writes the
 *  n files into it. Returns 0 with the directory's path in dir (dirlen bytes),
 *  or -1 with err set (whatever was created is removed again). */
int bundle_unpack(Quern__BundleFile *const *files, size_t n, char *dir, size_t dirlen, char *err,
                  size_t errlen);

/** The mark of a folder held by bundle_hold, inside it. */
#define BUNDLE_HELD ".quern-held"

/** Takes the lock that says dir is in use (flock on the folder itself),
 *  then marks dir (BUNDLE_HELD), and returns the descriptor holding the
 *  lock, or -1 (the folder is then never swept). The lock lasts until the
 *  descriptor is closed, by the agent or by its death. */
int bundle_hold(const char *dir);

/** Removes the marked run folders under $TMPDIR (or /tmp) that belong to
 *  this user and that no process holds: the leftovers of a killed agent.
 *  Returns how many were removed. */
int bundle_sweep(void);

/** Removes dir and everything under it (no symlink is followed); fine if it
 *  does not exist. */
void bundle_remove(const char *dir);

#endif
