/* fuzz_bundle — the scenario bundle an agent unpacks (proto/bundle, into an
 * agent/rundir folder): every path and file of a StartRun comes from the network.
 *
 * Input: one packed Quern__StartRun (the message whose files the agent
 * writes), unpacked into a private $TMPDIR made at start. Checks: each path
 * bundle_path_ok accepts is relative, without '\', and without an empty,
 * "." or ".." component; a bundle that unpacks leaves, under its directory
 * and nowhere else, only directories and regular files (no symbolic link)
 * whose paths are the bundle's; rundir_remove leaves nothing; a refused
 * bundle leaves no directory behind. */
#include <errno.h>
#include <ftw.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/rundir.h"
#include "common/err.h"
#include "proto/bundle.h"
#include "tests/fuzz/fuzz_util.h"

static char tmpdir[64];
static const Quern__StartRun *cur; /* borrowed: the bundle being checked */
static size_t rootlen;
static int entries;

/* Removes the private $TMPDIR at exit. */
static void cleanup(void)
{
    rundir_remove(-1, tmpdir);
}

static int path_ok_slow(const char *p)
{
    size_t n = strlen(p);
    char *copy, *save = NULL;
    int ok = 1;

    if (n == 0 || n > BUNDLE_PATH_MAX || p[0] == '/' || strchr(p, '\\') != NULL ||
        p[n - 1] == '/' || strstr(p, "//") != NULL)
        return 0;
    copy = strdup(p);
    fuzz_check(copy != NULL);
    for (char *c = strtok_r(copy, "/", &save); c != NULL; c = strtok_r(NULL, "/", &save))
        if (strcmp(c, ".") == 0 || strcmp(c, "..") == 0)
            ok = 0;
    free(copy);
    return ok;
}

/* Every entry under the unpacked directory is a directory, or a regular
 * file named by the bundle. */
static int check_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    entries++;
    fuzz_check(flag == FTW_F || flag == FTW_D || flag == FTW_DP);
    fuzz_check(!S_ISLNK(st->st_mode));
    if (flag == FTW_F) {
        int named = 0;
        fuzz_check(S_ISREG(st->st_mode));
        fuzz_check(strlen(path) > rootlen + 1);
        for (size_t i = 0; i < cur->n_files && !named; i++)
            named = strcmp(cur->files[i]->path, path + rootlen + 1) == 0;
        fuzz_check(named);
    }
    return 0;
}

/* The private $TMPDIR holds nothing. */
static int count_tmp(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    entries++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Quern__StartRun *sr;
    char dir[256], err[ERR_MAX];
    int fd;

    if (tmpdir[0] == '\0') {
        snprintf(tmpdir, sizeof(tmpdir), "/tmp/quern-fuzz-bundle.XXXXXX");
        fuzz_check(mkdtemp(tmpdir) != NULL);
        setenv("TMPDIR", tmpdir, 1);
        atexit(cleanup);
    }
    sr = quern__start_run__unpack(NULL, size, data);
    if (sr == NULL)
        return 0;
    for (size_t i = 0; i < sr->n_files; i++)
        fuzz_check(bundle_path_ok(sr->files[i]->path) == path_ok_slow(sr->files[i]->path));
    fd = rundir_new(NULL, sr->files, sr->n_files, dir, sizeof(dir), err, sizeof(err));
    if (fd >= 0) {
        struct stat st;
        fuzz_check(strncmp(dir, tmpdir, strlen(tmpdir)) == 0);
        cur = sr;
        rootlen = strlen(dir);
        entries = 0;
        fuzz_check(nftw(dir, check_entry, 16, FTW_PHYS) == 0);
        rundir_remove(fd, dir);
        close(fd);
        fuzz_check(stat(dir, &st) != 0 && errno == ENOENT);
    } else {
        fuzz_check(err[0] != '\0');
    }
    entries = 0;
    nftw(tmpdir, count_tmp, 16, FTW_PHYS);
    fuzz_check(entries == 1); /* the private $TMPDIR itself */
    quern__start_run__free_unpacked(sr, NULL);
    return 0;
}
