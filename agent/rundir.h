/* rundir — the agent's private folder of one run, and its cleanup.
 *
 * What it is for: each StartRun's bundle (proto/bundle.h) is written into a
 * fresh folder quern-run.XXXXXX (mode 0700) under the agent's --work-dir
 * (else $TMPDIR, else /tmp), the workers run from there, and the agent
 * removes it afterwards.
 *
 * An agent holds a lock on its run's folder (rundir_hold) for as long as it
 * uses it, and marks the folder as held that way (a RUNDIR_HELD file, made
 * once the lock is taken); an agent killed with SIGKILL cannot remove its
 * folder, so every agent removes, when it starts, the marked folders of its
 * user that nobody holds (rundir_sweep): the script and its CSV data do not
 * stay on disk. A folder without the mark (being made, or an agent of an
 * older version that takes no lock) is never touched.
 *
 * Usage:
 *     if (rundir_new(work_dir, sr->files, sr->n_files, dir, sizeof(dir), err, sizeof(err)) != 0)
 * ... int hold = rundir_hold(dir);
 *     ... the run ...
 *     rundir_remove(dir);
 *     close(hold); */
#ifndef QUERN_RUNDIR_H
#define QUERN_RUNDIR_H

#include <stddef.h>

#include "proto/quern.pb-c.h"

/** The mark of a folder held by rundir_hold, inside it. */
#define RUNDIR_HELD ".quern-held"

/** Makes path the folder of run folders (mode 0700 when it is made; its
 *  parent must exist): it must be absolute, a folder, and not writable by
 *  anyone unless sticky. Returns 0, or -1 with err set. */
int rundir_workdir(const char *path, char *err, size_t errlen);

/** Checks the n files (bundle_check), creates a fresh private folder under
 *  parent (NULL: $TMPDIR, else /tmp) and writes them into it. Returns 0 with
 *  the folder's path in dir (dirlen bytes), or -1 with err set and dir ""
 *  (whatever was created is removed again). */
int rundir_new(const char *parent, Quern__BundleFile *const *files, size_t n, char *dir,
               size_t dirlen, char *err, size_t errlen);

/** Takes the lock that says dir is in use (flock on the folder itself),
 *  then marks dir (RUNDIR_HELD), and returns the descriptor holding the
 *  lock, or -1 (the folder is then never swept). The lock lasts until the
 *  descriptor is closed, by the agent or by its death. */
int rundir_hold(const char *dir);

/** Removes the marked run folders under parent (NULL: $TMPDIR, else /tmp)
 *  that belong to this user and that no process holds: the leftovers of a
 *  killed agent. Returns how many were removed. */
int rundir_sweep(const char *parent);

/** Removes dir and everything under it (no symlink is followed); fine if it
 *  does not exist or is "" or NULL. */
void rundir_remove(const char *dir);

#endif
