/* bundle — the scenario's files as shipped in a StartRun: packed by the
 * console from the script's folder, unpacked by the agent into its run
 * folder. Both sides see the same path rules and limits here.
 *
 * Packing (bundle_pack): every regular file under the script's folder, to a
 * depth of 8 folders, except:
 *   - names starting with '.' (.git, .env, the .quernignore itself);
 *   - what the folder's .quernignore names (gitignore syntax,
 *     common/ignore.h; a malformed line is an error "DIR/.quernignore:LINE:
 *     why" and nothing is packed);
 *   - quern's own outputs and secrets, whatever .quernignore says: this
 *     run's files (bundle_opts: --jtl, --summary-json, --junit, --db and its
 *     -wal/-shm/-journal, --grinder-logs's folder, the port files; the
 *     --token-file a secret), matched by device and inode so any name or
 *     link to them is left out; and by name what earlier runs leave: *.jtl,
 *     quern-results.db*, *.db, *.db-wal, *.db-shm, *.db-journal, *.log (the
 *     Grinder's out_*.log and data_*.log among them), and the HTML pages of
 *     `quern report` and `quern compare`, known by the generator mark in
 *     their head (QUERN_HTML_GENERATOR_PREFIX, within the first 512 bytes:
 *     a page of the tester's never carries it, so no data file is skipped
 *     for its name); a file whose name holds "token" (any case) that only
 *     its owner may read (mode 0600 or 0400) is a secret.
 * Each file left out for those reasons is counted (a folder left out counts
 * as one), so the start line says "bundle: N files, M bytes (K skipped:
 * .quernignore 3, quern outputs 2)" (bundle_describe).
 * Symbolic links that lead inside the folder are followed: a link to a file
 * ships the file's bytes under the link's name, a link to a folder ships
 * that folder's files, a dangling link is skipped; a link that leads out of
 * the folder is an error naming it and its target (nothing of the host
 * outside the folder is ever shipped, loot -> /etc/shadow). A path longer
 * than BUNDLE_PATH_MAX is skipped; more than BUNDLE_MAX_FILES files or
 * BUNDLE_MAX_BYTES bytes is an error that names the 5 largest files with
 * their sizes, in one line.
 *
 * The local agent (`quern run` without --agents, console/local.h): the
 * limits are there because a StartRun is one frame of at most 16 MiB
 * (FRAME_MAX_DEFAULT, proto/frame.h), read whole into memory on both sides;
 * raising them for a local run would still refuse a folder of 1 GB of CSV
 * and cost two copies in memory. So for the agent on the console's host the
 * bundle lists the files by path, without their data (bundle_opts.local:
 * no size limit, at most BUNDLE_LOCAL_MAX_FILES files), StartRun.local_folder
 * names the folder's real path, and the agent makes each file of its run
 * folder a symbolic link to that file's real path (bundle_link), checked to
 * lie inside the folder: the same files as a distributed run, by the same
 * rules, at no cost whatever their size. The files the console made for
 * the run (bundle_add: grpc.load's descriptor sets) carry their bytes in
 * either case, and are written. An agent accepts a local_folder only when
 * started with --same-host (as `quern run` starts its own).
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
 *     bundle_opts bo = {outputs, noutputs, secrets, nsecrets, 0};
 *     if (bundle_pack("scen/test.lua", &bo, &b, err, sizeof(err)) != 0) ...
 *     sr.files = b.files; sr.n_files = b.nfiles; sr.script_name = b.script_name;
 *     bundle_free(&b);
 * and on the other side:
 *     if (bundle_unpack(sr->files, sr->n_files, dirfd, err, sizeof(err)) != 0) ...
 * or, with sr->local_folder set:
 *     if (bundle_link(sr->local_folder, sr->files, sr->n_files, dirfd, ...) != 0) ... */
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
/** Most files listed for the local agent (bundle_opts.local). */
#define BUNDLE_LOCAL_MAX_FILES 100000
/** Most bytes of paths listed for the local agent: the StartRun stays a
 *  frame (FRAME_MAX_DEFAULT). */
#define BUNDLE_LOCAL_LIST_MAX (8u * 1024u * 1024u)
/** The ignore file read in the script's folder. */
#define BUNDLE_IGNORE_FILE ".quernignore"

/** Why files were left out, counted in bundle.skipped. */
enum {
    BUNDLE_SKIP_IGNORE, /**< named by the folder's .quernignore */
    BUNDLE_SKIP_OUTPUT, /**< quern's own outputs */
    BUNDLE_SKIP_SECRET, /**< token files */
    BUNDLE_SKIP_KINDS
};

/** What bundle_pack leaves out besides its rules, and how it packs. */
typedef struct bundle_opts {
    const char *const *outputs; /**< borrowed: this run's own files (NULL entries skipped) */
    size_t noutputs;
    const char *const *secrets; /**< borrowed: this run's secret files (--token-file) */
    size_t nsecrets;
    int local; /**< for the local agent: files listed without data, no size limit */
} bundle_opts;

/** A packed scenario folder. */
typedef struct bundle {
    Quern__BundleFile **files; /**< owned: nfiles files, each with its path and data owned */
    size_t nfiles;
    size_t bytes;                      /**< all files' data together */
    char script_name[256];             /**< the script's file name, relative to the folder */
    char folder[4096];                 /**< the folder's real path (StartRun.local_folder) */
    size_t path_bytes;                 /**< all files' paths together */
    size_t skipped[BUNDLE_SKIP_KINDS]; /**< files and folders left out, by why */
} bundle;

/** 1 if path is a safe relative bundle path (see above), else 0. */
int bundle_path_ok(const char *path);

/** Packs the folder of script (see above) into b; o (borrowed) may be NULL.
 *  Returns 0, or -1 with err set and b empty. */
int bundle_pack(const char *script, const bundle_opts *o, bundle *b, char *err, size_t errlen);

/** "N files, M bytes (K skipped: .quernignore 3, quern outputs 2)" into buf
 *  (len bytes), the parenthesis only when something was; returns buf. */
char *bundle_describe(const bundle *b, char *buf, size_t len);

/** Adds a file made for the bundle (path relative to the script's folder,
 *  len bytes of data copied), replacing one of the same path: the
 *  descriptor sets the console compiles from a script's .proto files
 *  (worker/lua/lgrpc.h). Returns 0, or -1 with err set (a path bundle_path_ok
 *  refuses, the limits) and b unchanged. */
int bundle_add(bundle *b, const char *path, const void *data, size_t len, char *err, size_t errlen);

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

/** For the local agent: makes each of the n files (paths only, no data)
 *  under the folder of dirfd (borrowed) a symbolic link to the real path of
 *  the same file under folder (absolute), and writes those with data (the
 *  ones the console made, bundle_add), refusing a path that is not
 *  plain or that leads out of folder. Returns 0, or -1 with err set; links
 *  already made stay (the caller removes its folder). */
int bundle_link(const char *folder, Quern__BundleFile *const *files, size_t n, int dirfd, char *err,
                size_t errlen);

#endif
