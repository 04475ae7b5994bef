/* rundir — the agent's private folder of one run, and its cleanup.
 *
 * What it is for: each StartRun's bundle (proto/bundle.h) is written into a
 * fresh folder quern-run.XXXXXX (mode 0700) under the agent's --work-dir
 * (else $TMPDIR, else /tmp), the workers run from there, and the agent
 * removes it afterwards.
 *
 * The agent runs the Lua it finds there, so nobody else may swap it: the
 * work folder and every folder above it must belong to the agent's user or
 * root, none may be a symbolic link, and none may be writable by its group
 * or others unless sticky, as /tmp is (rundir_workdir). The run folder is
 * then made relative to the work folder's descriptor and used only through
 * its own descriptor from there on: the bundle is written with openat, the
 * workers fchdir into it (worker/wproc.h), the result files are read back
 * with openat (agent/fileup.h) and the removal unlinks relative to it,
 * following no symbolic link.
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
 *     int fd = rundir_new(work_dir, sr->files, sr->n_files, dir, sizeof(dir), err, sizeof(err));
 *     if (fd < 0) ...
 *     rundir_hold(fd);
 *     ... the run, its workers given fd ...
 *     rundir_remove(fd, dir);
 *     close(fd); */
#ifndef QUERN_RUNDIR_H
#define QUERN_RUNDIR_H

#include <stddef.h>

#include "proto/quern.pb-c.h"

/** The mark of a folder held by rundir_hold, inside it. */
#define RUNDIR_HELD ".quern-held"

/** Checks the folder of run folders: path (the --work-dir value, made mode
 *  0700 when it is missing; its parent must exist), or with path NULL the
 *  default ($TMPDIR, else /tmp: checked, never made). It must be absolute,
 *  a folder, and it and every folder above it must be owned by this user
 *  or root, not be a symbolic link, and not be writable by group or others
 *  unless sticky. Returns 0, or -1 with err naming the folder and why. */
int rundir_workdir(const char *path, char *err, size_t errlen);

/** Checks the n files (bundle_check), creates a fresh private folder under
 *  parent (NULL: $TMPDIR, else /tmp; checked as rundir_workdir does) and
 *  writes them into it through its descriptor. Returns that descriptor
 *  (owned by the caller, close-on-exec) with the folder's path in dir
 *  (dirlen bytes, for messages and rundir_remove), or -1 with err set and
 *  dir "" (whatever was created is removed again). */
int rundir_new(const char *parent, Quern__BundleFile *const *files, size_t n, char *dir,
               size_t dirlen, char *err, size_t errlen);

/** rundir_new for a run by folder (StartRun.local_folder): with folder
 *  (borrowed) not NULL nor "", each of the n files is a symbolic link to the
 *  same file under folder (bundle_link) instead of its data. */
int rundir_new_from(const char *parent, const char *folder, Quern__BundleFile *const *files,
                    size_t n, char *dir, size_t dirlen, char *err, size_t errlen);

/** Takes the lock that says the folder of fd (from rundir_new) is in use
 *  (flock on fd), then marks it (RUNDIR_HELD). Returns 0, or -1 (the folder
 *  is then never swept). The lock lasts until every copy of fd is closed,
 *  by the agent or by its death. */
int rundir_hold(int fd);

/** Removes the marked run folders under parent (NULL: $TMPDIR, else /tmp)
 *  that belong to this user and that no process holds: the leftovers of a
 *  killed agent. Follows no symbolic link. Returns how many were removed. */
int rundir_sweep(const char *parent);

/** Removes the folder dir and everything under it, following no symbolic
 *  link: its contents through fd, its descriptor (borrowed, left open), or
 *  when fd is -1 through a descriptor opened here; the folder itself
 *  relative to its parent's descriptor, and only while dir still names the
 *  folder of fd. Fine if dir does not exist or is "" or NULL. */
void rundir_remove(int fd, const char *dir);

#endif
