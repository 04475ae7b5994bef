/* Unit tests for proto/bundle: the path rules, the limits, what packing takes
 * from a folder (links inside it followed, links out of it refused, hidden
 * files, results, quern's outputs, token files and the .quernignore's names
 * left out and counted; too big a folder naming its largest files; the
 * local agent's links) and a round trip pack -> unpack giving the
 * same bytes, never through a link planted in the folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/rundir.h"
#include "common/err.h"
#include "proto/bundle.h"

/* The recursive removal of the agent's run folders (no link followed). */
static void rm_tree(const char *dir)
{
    rundir_remove(-1, dir);
}

/* bundle_unpack into the folder dir, through its descriptor. */
static int unpack_into(Quern__BundleFile *const *files, size_t n, const char *dir, char *err,
                       size_t errlen)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

    assert_true(fd >= 0);
    rc = bundle_unpack(files, n, fd, err, errlen);
    close(fd);
    return rc;
}

static void put(const char *dir, const char *rel, const char *text)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void sub(const char *dir, const char *rel)
{
    char path[4096];

    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    assert_int_equal(mkdir(path, 0700), 0);
}

static void link_to(const char *dir, const char *rel, const char *target)
{
    char path[4096];

    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    assert_int_equal(symlink(target, path), 0);
}

/* A file of exactly size bytes (sparse: reads as zeros). */
static void sized(const char *dir, const char *rel, off_t size)
{
    char path[4096];
    int fd;

    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, size), 0);
    close(fd);
}

static const Quern__BundleFile *find(const bundle *b, const char *path)
{
    for (size_t i = 0; i < b->nfiles; i++)
        if (strcmp(b->files[i]->path, path) == 0)
            return b->files[i];
    return NULL;
}

static int same_text(const Quern__BundleFile *f, const char *text)
{
    return f != NULL && f->data.len == strlen(text) && memcmp(f->data.data, text, f->data.len) == 0;
}

static void tmp_folder(char *dir, size_t len)
{
    snprintf(dir, len, "/tmp/quern-test-bundle.XXXXXX");
    assert_non_null(mkdtemp(dir));
}

static void test_path_rules(void **state)
{
    static char longest[BUNDLE_PATH_MAX + 2];

    assert_true(bundle_path_ok("main.lua"));
    assert_true(bundle_path_ok("data/users.csv"));
    assert_true(bundle_path_ok("a/..b/c..")); /* dots inside a name are a name */
    assert_true(bundle_path_ok("..."));
    assert_true(bundle_path_ok(".hidden"));
    assert_false(bundle_path_ok(NULL));
    assert_false(bundle_path_ok(""));
    assert_false(bundle_path_ok("/etc/passwd"));
    assert_false(bundle_path_ok(".."));
    assert_false(bundle_path_ok("../x"));
    assert_false(bundle_path_ok("a/../../x"));
    assert_false(bundle_path_ok("a/.."));
    assert_false(bundle_path_ok("."));
    assert_false(bundle_path_ok("./a"));
    assert_false(bundle_path_ok("a/./b"));
    assert_false(bundle_path_ok("a//b"));
    assert_false(bundle_path_ok("a/"));
    assert_false(bundle_path_ok("a\\b"));
    assert_false(bundle_path_ok("..\\x"));
    /* A name cut by a NUL is judged up to the NUL: "a" here. */
    assert_true(bundle_path_ok("a\0/../x"));
    memset(longest, 'x', BUNDLE_PATH_MAX);
    assert_true(bundle_path_ok(longest));
    longest[BUNDLE_PATH_MAX] = 'x';
    assert_false(bundle_path_ok(longest));
}

static void test_check_limits(void **state)
{
    size_t n = BUNDLE_MAX_FILES + 1;
    Quern__BundleFile f = QUERN__BUNDLE_FILE__INIT, big = QUERN__BUNDLE_FILE__INIT;
    Quern__BundleFile **fp = calloc(n, sizeof(*fp));
    Quern__BundleFile *two[2] = {&f, &big};
    char err[ERR_MAX];

    assert_non_null(fp);
    f.path = (char *)"a.csv";
    for (size_t i = 0; i < n; i++)
        fp[i] = &f;
    assert_int_equal(bundle_check(fp, BUNDLE_MAX_FILES, err, sizeof(err)), 0);
    assert_int_equal(bundle_check(fp, n, err, sizeof(err)), -1);
    assert_string_equal(err, "bundle has 10001 files, at most 10000 allowed");
    free(fp);

    /* Only lengths are summed: no data is needed to test the bound. */
    big.path = (char *)"big.bin";
    f.data.len = 1;
    big.data.len = BUNDLE_MAX_BYTES - 1;
    assert_int_equal(bundle_check(two, 2, err, sizeof(err)), 0);
    big.data.len = BUNDLE_MAX_BYTES;
    assert_int_equal(bundle_check(two, 2, err, sizeof(err)), -1);
    assert_string_equal(err, "bundle larger than 15728640 bytes");

    f.path = (char *)"../up.lua";
    assert_int_equal(bundle_check(two, 1, err, sizeof(err)), -1);
    assert_string_equal(err, "refused bundle path \"../up.lua\"");
    f.path = (char *)"/abs.lua";
    assert_int_equal(bundle_check(two, 1, err, sizeof(err)), -1);
    assert_string_equal(err, "refused bundle path \"/abs.lua\"");
}

/* What packing takes: regular files, links followed, hidden files and
 * results left out, a path over BUNDLE_PATH_MAX skipped. */
static void test_pack_content(void **state)
{
    char dir[64], script[128], deep[4096] = "";
    char name[201];
    bundle b;
    char err[ERR_MAX];
    const Quern__BundleFile *f;

    tmp_folder(dir, sizeof(dir));
    put(dir, "main.lua", "print(1)\n");
    sub(dir, "data");
    put(dir, "data/users.csv", "id\n1\n");
    put(dir, ".secret", "x");
    put(dir, "results.db", "x");
    put(dir, "results.db-wal", "x");
    put(dir, "run.log", "x");
    link_to(dir, "users-link.csv", "data/users.csv");
    link_to(dir, "dangling.csv", "nowhere.csv");
    link_to(dir, "data-link", "data");
    /* 200-character folder names, 5 deep: a file there is past 1024. */
    memset(name, 'd', 200);
    name[200] = '\0';
    for (int i = 0; i < 5; i++) {
        strcat(deep, i ? "/" : "");
        strcat(deep, name);
        sub(dir, deep);
    }
    strcat(deep, "/far-away-from-the-root-000.csv"); /* 1036 characters */
    put(dir, deep, "far");
    snprintf(script, sizeof(script), "%s/main.lua", dir);

    assert_int_equal(bundle_pack(script, NULL, &b, err, sizeof(err)), 0);
    assert_string_equal(b.script_name, "main.lua");
    assert_int_equal(b.nfiles, 4);
    assert_true(same_text(find(&b, "main.lua"), "print(1)\n"));
    assert_true(same_text(find(&b, "data/users.csv"), "id\n1\n"));
    /* A link to a file ships the file's bytes under the link's name. */
    f = find(&b, "users-link.csv");
    assert_true(same_text(f, "id\n1\n"));
    /* A link to a folder ships that folder's files. */
    assert_true(same_text(find(&b, "data-link/users.csv"), "id\n1\n"));
    assert_null(find(&b, "dangling.csv"));
    assert_null(find(&b, ".secret"));
    assert_null(find(&b, "results.db"));
    assert_null(find(&b, "run.log"));
    assert_int_equal(b.bytes, 9 + 5 + 5 + 5);
    for (size_t i = 0; i < b.nfiles; i++)
        assert_true(bundle_path_ok(b.files[i]->path));
    bundle_free(&b);
    assert_int_equal(b.nfiles, 0);
    bundle_free(&b); /* an empty bundle is fine */
    rm_tree(dir);
}

static void test_pack_limits(void **state)
{
    char dir[64], script[128], err[1024], want[1024];
    bundle b;

    tmp_folder(dir, sizeof(dir));
    put(dir, "main.lua", "");
    sized(dir, "data.bin", BUNDLE_MAX_BYTES);
    snprintf(script, sizeof(script), "%s/main.lua", dir);
    assert_int_equal(bundle_pack(script, NULL, &b, err, sizeof(err)), 0);
    assert_int_equal(b.bytes, BUNDLE_MAX_BYTES);
    bundle_free(&b);

    /* too big: the 5 largest named, biggest first, and the advice */
    sized(dir, "data.bin", BUNDLE_MAX_BYTES + 1);
    sized(dir, "a.csv", 3 * 1048576);
    sized(dir, "b.csv", 2 * 1048576);
    sized(dir, "c.csv", 1048576);
    sized(dir, "d.csv", 1048576 / 2);
    sized(dir, "e.csv", 10);
    assert_int_equal(bundle_pack(script, NULL, &b, err, sizeof(err)), -1);
    snprintf(want, sizeof(want),
             "the scenario's folder %s is too big to ship to agents (7 files, 21.5 MiB; at most "
             "10000 files, 15 MiB): its largest files data.bin 15.0 MiB, a.csv 3.0 MiB, b.csv "
             "2.0 MiB, c.csv 1.0 MiB, d.csv 0.5 MiB; add them to %s/.quernignore or move them "
             "out of the folder",
             dir, dir);
    assert_string_equal(err, want);
    assert_int_equal(b.nfiles, 0);
    assert_null(b.files);

    /* the local agent links the files: no size limit, no data read */
    bundle_opts local = {NULL, 0, NULL, 0, 1};
    assert_int_equal(bundle_pack(script, &local, &b, err, sizeof(err)), 0);
    assert_int_equal(b.nfiles, 7);
    assert_true(b.bytes > BUNDLE_MAX_BYTES);
    for (size_t i = 0; i < b.nfiles; i++)
        assert_int_equal(b.files[i]->data.len, 0);
    assert_true(b.folder[0] == '/');
    bundle_free(&b);

    snprintf(script, sizeof(script), "%s/none/main.lua", dir);
    assert_int_equal(bundle_pack(script, NULL, &b, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "cannot read folder "));
    rm_tree(dir);
}

/* Pack a folder, unpack it elsewhere: the same files, bytes and modes. */
static void test_round_trip(void **state)
{
    char src[64], dst[64], script[128], err[ERR_MAX];
    bundle b, back;
    unsigned char bin[300];

    for (size_t i = 0; i < sizeof(bin); i++)
        bin[i] = (unsigned char)(i * 7);
    tmp_folder(src, sizeof(src));
    tmp_folder(dst, sizeof(dst));
    put(src, "main.lua", "return 1\n");
    sub(src, "a");
    sub(src, "a/b");
    put(src, "a/b/c.csv", "x,y\n");
    {
        char path[256];
        FILE *f;
        snprintf(path, sizeof(path), "%s/a/bin.dat", src);
        f = fopen(path, "wb");
        assert_non_null(f);
        fwrite(bin, 1, sizeof(bin), f);
        fclose(f);
        snprintf(path, sizeof(path), "%s/main.lua", src);
        chmod(path, 0750);
    }
    snprintf(script, sizeof(script), "%s/main.lua", src);
    assert_int_equal(bundle_pack(script, NULL, &b, err, sizeof(err)), 0);
    assert_int_equal(b.nfiles, 3);
    assert_int_equal(unpack_into(b.files, b.nfiles, dst, err, sizeof(err)), 0);

    snprintf(script, sizeof(script), "%s/main.lua", dst);
    assert_int_equal(bundle_pack(script, NULL, &back, err, sizeof(err)), 0);
    assert_int_equal(back.nfiles, b.nfiles);
    assert_int_equal(back.bytes, b.bytes);
    for (size_t i = 0; i < b.nfiles; i++) {
        const Quern__BundleFile *o = b.files[i], *n = find(&back, o->path);
        assert_non_null(n);
        assert_int_equal(n->data.len, o->data.len);
        assert_memory_equal(n->data.data, o->data.data, o->data.len);
        assert_int_equal(n->mode, o->mode);
    }
    assert_int_equal(find(&back, "main.lua")->mode, 0750);

    /* Unpacking again over the same files: never overwritten. */
    assert_int_equal(unpack_into(b.files, b.nfiles, dst, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "create "));
    bundle_free(&b);
    bundle_free(&back);
    rm_tree(src);
    rm_tree(dst);
}

/* A link already in the folder is not followed by a file written there. */
static void test_unpack_no_follow(void **state)
{
    char dst[64], target[128], err[ERR_MAX];
    Quern__BundleFile f = QUERN__BUNDLE_FILE__INIT, *fp[1] = {&f};
    struct stat st;

    tmp_folder(dst, sizeof(dst));
    snprintf(target, sizeof(target), "%s/outside", dst);
    link_to(dst, "evil", target);
    f.path = (char *)"evil";
    f.data.data = (uint8_t *)"x";
    f.data.len = 1;
    assert_int_equal(unpack_into(fp, 1, dst, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "create evil: "));
    assert_int_not_equal(stat(target, &st), 0);

    f.path = (char *)"../escape";
    assert_int_equal(unpack_into(fp, 1, dst, err, sizeof(err)), -1);
    assert_string_equal(err, "refused bundle path \"../escape\"");
    rm_tree(dst);
}

/* A link planted in place of a folder of the bundle is not followed: the
 * file meant for data/ is not written where the link points. */
static void test_unpack_folder_link(void **state)
{
    char dst[64], out[64], path[160], err[ERR_MAX];
    Quern__BundleFile f = QUERN__BUNDLE_FILE__INIT, *fp[1] = {&f};
    struct stat st;

    tmp_folder(dst, sizeof(dst));
    tmp_folder(out, sizeof(out));
    link_to(dst, "data", out);
    f.path = (char *)"data/users.csv";
    f.data.data = (uint8_t *)"x";
    f.data.len = 1;
    assert_int_equal(unpack_into(fp, 1, dst, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "open folder data: "));
    snprintf(path, sizeof(path), "%s/users.csv", out);
    assert_int_not_equal(lstat(path, &st), 0);
    rm_tree(dst);
    rm_tree(out);
}

/* A link out of the scenario's folder is refused by name, with its target:
 * nothing of the host outside the folder is shipped. One inside it stays
 * fine, however it is written. */
static void test_pack_link_out(void **state)
{
    char dir[64], out[64], script[128], target[128], want[512], err[ERR_MAX];
    bundle b;

    tmp_folder(dir, sizeof(dir));
    tmp_folder(out, sizeof(out));
    put(dir, "main.lua", "print(1)\n");
    sub(dir, "data");
    put(dir, "data/users.csv", "id\n");
    put(out, "secret", "s");
    /* Inside, by a detour through the parent: allowed. */
    snprintf(target, sizeof(target), "../../%s/data/users.csv", strrchr(dir, '/') + 1);
    link_to(dir, "data/again.csv", target);
    snprintf(script, sizeof(script), "%s/main.lua", dir);
    assert_int_equal(bundle_pack(script, NULL, &b, err, sizeof(err)), 0);
    assert_true(same_text(find(&b, "data/again.csv"), "id\n"));
    bundle_free(&b);

    link_to(dir, "loot", "/etc/shadow");
    assert_int_equal(bundle_pack(script, NULL, &b, err, sizeof(err)), -1);
    snprintf(want, sizeof(want),
             "%s/loot is a symbolic link to /etc/shadow, outside the scenario's folder %s: not "
             "shipped (copy what it points to into the folder)",
             dir, dir);
    assert_string_equal(err, want);
    assert_int_equal(b.nfiles, 0);
    rm_tree(dir);

    /* A relative link out, and a link to a folder out: the target is shown
     * as written and as it resolves. */
    tmp_folder(dir, sizeof(dir));
    put(dir, "main.lua", "");
    snprintf(target, sizeof(target), "../%s", strrchr(out, '/') + 1);
    link_to(dir, "shared", target);
    snprintf(script, sizeof(script), "%s/main.lua", dir);
    assert_int_equal(bundle_pack(script, NULL, &b, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "%s/shared is a symbolic link to %s (%s), outside", dir, target,
             out);
    assert_non_null(strstr(err, want));
    rm_tree(dir);
    rm_tree(out);
}

static void chmod_at(const char *dir, const char *rel, mode_t mode)
{
    char path[4096];

    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    assert_int_equal(chmod(path, mode), 0);
}

/* What is left out and counted: the .quernignore's names, this run's own
 * files by inode (whatever their name), earlier runs' results by name,
 * quern's HTML pages by their mark, and token files only their owner reads;
 * what looks alike but is the tester's is kept. */
static void test_pack_exclusions(void **state)
{
    char dir[64], script[128], err[ERR_MAX], p[3][256], what[256];
    const char *outs[2], *secrets[1];
    bundle b;

    tmp_folder(dir, sizeof(dir));
    put(dir, "main.lua", "x");
    put(dir, ".quernignore", "# big data\n*.bin\n/raw/\n!keep.bin\nlogs/**\n");
    put(dir, "big.bin", "x");
    put(dir, "keep.bin", "kept");
    sub(dir, "raw");
    put(dir, "raw/a.csv", "x");
    sub(dir, "sub");
    sub(dir, "sub/raw");
    put(dir, "sub/raw/b.csv", "kept"); /* "/raw/" is anchored to the folder */
    sub(dir, "logs");
    put(dir, "logs/x.txt", "x");
    put(dir, "results.csv", "x");  /* --jtl results.csv: by inode */
    put(dir, "summary.json", "x"); /* --summary-json */
    put(dir, "run.jtl", "x");      /* an earlier run's JTL */
    put(dir, "quern-results.db-journal", "x");
    put(dir, "report.html",
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"generator\" content=\"quern 0.1.0\">\n");
    put(dir, "page.html", "<!DOCTYPE html>\n<p>the tester's page</p>\n");
    put(dir, "api-token", "secret");
    chmod_at(dir, "api-token", 0600);
    put(dir, "token-list.csv", "kept"); /* readable by others: data */
    chmod_at(dir, "token-list.csv", 0644);
    put(dir, "my.secret", "s"); /* --token-file: by inode */
    snprintf(p[0], sizeof(p[0]), "%s/results.csv", dir);
    snprintf(p[1], sizeof(p[1]), "%s/summary.json", dir);
    snprintf(p[2], sizeof(p[2]), "%s/my.secret", dir);
    outs[0] = p[0];
    outs[1] = p[1];
    secrets[0] = p[2];
    bundle_opts bo = {outs, 2, secrets, 1, 0};
    snprintf(script, sizeof(script), "%s/main.lua", dir);
    assert_int_equal(bundle_pack(script, &bo, &b, err, sizeof(err)), 0);
    assert_true(same_text(find(&b, "keep.bin"), "kept"));
    assert_true(same_text(find(&b, "sub/raw/b.csv"), "kept"));
    assert_true(same_text(find(&b, "token-list.csv"), "kept"));
    assert_non_null(find(&b, "page.html"));
    assert_non_null(find(&b, "main.lua"));
    assert_int_equal(b.nfiles, 5);
    /* .quernignore: big.bin, raw/, logs/x.txt; outputs: results.csv,
     * summary.json, run.jtl, the journal, report.html; secrets: api-token,
     * my.secret */
    assert_int_equal(b.skipped[BUNDLE_SKIP_IGNORE], 3);
    assert_int_equal(b.skipped[BUNDLE_SKIP_OUTPUT], 5);
    assert_int_equal(b.skipped[BUNDLE_SKIP_SECRET], 2);
    bundle_describe(&b, what, sizeof(what));
    assert_string_equal(what, "5 files, 54 bytes (10 skipped: .quernignore 3, quern outputs 5, "
                              "secrets 2)");
    bundle_free(&b);
    bundle_describe(&b, what, sizeof(what));
    assert_string_equal(what, "0 files, 0 bytes");

    /* a malformed line: one error naming the file and line, nothing packed */
    put(dir, ".quernignore", "*.bin\n\n[abc\n");
    assert_int_equal(bundle_pack(script, &bo, &b, err, sizeof(err)), -1);
    snprintf(what, sizeof(what), "%s/.quernignore:3: a '[' that is never closed in \"[abc\"", dir);
    assert_string_equal(err, what);
    assert_int_equal(b.nfiles, 0);
    rm_tree(dir);
}

/* The local agent's run folder: a link to each listed file's real path,
 * the same bytes; a path leading out of the folder is refused. */
static void test_link(void **state)
{
    char dir[64], run[64], script[128], err[ERR_MAX], path[256], buf[16];
    bundle_opts local = {NULL, 0, NULL, 0, 1};
    bundle b;
    FILE *f;
    int fd;

    tmp_folder(dir, sizeof(dir));
    tmp_folder(run, sizeof(run));
    put(dir, "main.lua", "main");
    sub(dir, "data");
    put(dir, "data/u.csv", "u,1");
    link_to(dir, "alias.csv", "data/u.csv");
    snprintf(script, sizeof(script), "%s/main.lua", dir);
    assert_int_equal(bundle_pack(script, &local, &b, err, sizeof(err)), 0);
    assert_int_equal(b.nfiles, 3);
    fd = open(run, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(bundle_link(b.folder, b.files, b.nfiles, fd, err, sizeof(err)), 0);
    snprintf(path, sizeof(path), "%s/alias.csv", run);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(buf, sizeof(buf), f));
    fclose(f);
    assert_string_equal(buf, "u,1");
    close(fd);
    rm_tree(run);

    /* a link swapped after the listing to lead out is refused */
    tmp_folder(run, sizeof(run));
    fd = open(run, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    snprintf(path, sizeof(path), "%s/alias.csv", dir);
    assert_int_equal(unlink(path), 0);
    link_to(dir, "alias.csv", "/etc/passwd");
    assert_int_equal(bundle_link(b.folder, b.files, b.nfiles, fd, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "leads to /etc/passwd, outside the scenario's folder"));
    close(fd);
    bundle_free(&b);
    rm_tree(run);
    rm_tree(dir);
}

/* bundle_add: a new file, one replacing another of its path, and refusals. */
static void test_add(void **state)
{
    bundle b;
    char err[ERR_MAX];

    memset(&b, 0, sizeof(b));
    assert_int_equal(bundle_add(&b, "quern-grpc/svc.proto.pb", "abc", 3, err, sizeof(err)), 0);
    assert_int_equal(b.nfiles, 1);
    assert_int_equal(b.bytes, 3);
    assert_int_equal(bundle_add(&b, "quern-grpc/svc.proto.pb", "xy", 2, err, sizeof(err)), 0);
    assert_int_equal(b.nfiles, 1);
    assert_int_equal(b.bytes, 2);
    assert_memory_equal(b.files[0]->data.data, "xy", 2);
    assert_int_equal(bundle_add(&b, "../out.pb", "x", 1, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "safe path"));
    assert_int_equal(bundle_add(&b, "big.pb", "x", BUNDLE_MAX_BYTES, err, sizeof(err)), -1);
    assert_int_equal(b.nfiles, 1);
    bundle_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_rules),
        cmocka_unit_test(test_check_limits),
        cmocka_unit_test(test_pack_content),
        cmocka_unit_test(test_pack_limits),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_unpack_no_follow),
        cmocka_unit_test(test_unpack_folder_link),
        cmocka_unit_test(test_pack_link_out),
        cmocka_unit_test(test_pack_exclusions),
        cmocka_unit_test(test_link),
        cmocka_unit_test(test_add),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
