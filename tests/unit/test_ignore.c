/* Unit tests for common/ignore: each gitignore rule on its own, the last
 * matching rule winning, and the malformed lines refused with their line.
 *
 * The table of cases was checked against git 2.39's own matcher: in a
 * fresh repository, each case's patterns as .gitignore, the path made (a
 * folder when is_dir), then `git check-ignore -q --no-index PATH` (PATH/
 * for a folder). They all agree but one, said where it is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/err.h"
#include "common/ignore.h"

typedef struct ignore_case {
    const char *rules; /* the ignore file, lines separated by '\n' */
    const char *path;
    int is_dir;
    int ignored;
} ignore_case;

static const ignore_case cases[] = {
    {"*.csv", "data.csv", 0, 1},
    {"*.csv", "a/b/data.csv", 0, 1},
    {"*.csv", "data.csvx", 0, 0},
    {"/top.txt", "top.txt", 0, 1},
    {"/top.txt", "a/top.txt", 0, 0},
    {"doc/*.txt", "doc/x.txt", 0, 1},
    {"doc/*.txt", "doc/y/x.txt", 0, 0},
    {"doc/*.txt", "a/doc/x.txt", 0, 0},
    {"build/", "build", 1, 1},
    {"build/", "build", 0, 0},
    {"build/", "a/build", 1, 1},
    {"a?c", "abc", 0, 1},
    {"a?c", "a/c", 0, 0},
    {"a?c", "ac", 0, 0},
    {"[abc].lua", "b.lua", 0, 1},
    {"[abc].lua", "d.lua", 0, 0},
    {"[!abc].lua", "d.lua", 0, 1},
    {"[^abc].lua", "a.lua", 0, 0},
    {"[a-c]x", "bx", 0, 1},
    {"[a-c]x", "dx", 0, 0},
    {"[[:digit:]]*.log2", "7a.log2", 0, 1},
    {"[[:digit:]]*.log2", "a7.log2", 0, 0},
    {"**/logs", "logs", 1, 1},
    {"**/logs", "x/y/logs", 1, 1},
    {"**/logs/out", "x/logs/out", 0, 1},
    {"**/logs/out", "logs/out", 0, 1},
    {"out/**", "out/a", 0, 1},
    {"out/**", "out/a/b", 0, 1},
    {"a/**/b", "a/b", 0, 1},
    {"a/**/b", "a/x/b", 0, 1},
    {"a/**/b", "a/x/y/b", 0, 1},
    {"a/**/b", "ab", 0, 0},
    {"x**y", "xay", 0, 1},
    {"x**y", "xa/y", 0, 0},
    {"\\#hash", "#hash", 0, 1},
    {"\\!bang", "!bang", 0, 1},
    {"trail\\ ", "trail ", 0, 1},
    {"*.csv\n!keep.csv", "keep.csv", 0, 0},
    {"*.csv\n!keep.csv", "other.csv", 0, 1},
    {"!keep.csv\n*.csv", "keep.csv", 0, 1},
    {"# comment\n\nx", "x", 0, 1},
    {"a\\*b", "a*b", 0, 1},
    {"a\\*b", "axb", 0, 0},
    {"*", "anything/x", 0, 1},
    {"sub/deep.txt", "sub/deep.txt", 0, 1},
    {"/sub/deep.txt", "sub/deep.txt", 0, 1},
};

static void test_cases(void **state)
{
    char err[ERR_MAX];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const ignore_case *c = &cases[i];
        ignore *ig = ignore_parse(c->rules, strlen(c->rules), ".quernignore", err, sizeof(err));
        assert_non_null(ig);
        if (ignore_match(ig, c->path, c->is_dir) != c->ignored)
            fail_msg("rules \"%s\", path %s%s: want %d", c->rules, c->path, c->is_dir ? "/" : "",
                     c->ignored);
        ignore_free(ig);
    }
}

/* Trailing stars match what is inside the folder out, not out itself (git's
 * check-ignore says out/ too, but git status walks into it): so a later
 * "!out/keep" brings that file back, as in git. */
static void test_inside_only(void **state)
{
    const char *text = "out/**\n!out/keep\n";
    ignore *ig = ignore_parse(text, strlen(text), ".quernignore", NULL, 0);

    (void)state;
    assert_int_equal(ignore_match(ig, "out", 1), 0);
    assert_int_equal(ignore_match(ig, "out/a", 0), 1);
    assert_int_equal(ignore_match(ig, "out/keep", 0), 0);
    ignore_free(ig);
}

/* Blank lines, comments, CRLF line ends and trailing spaces make no rule. */
static void test_blank_and_comments(void **state)
{
    const char *text = "\n# a comment\n   \n*.bin  \r\n#*.csv\n";
    ignore *ig = ignore_parse(text, strlen(text), ".quernignore", NULL, 0);

    (void)state;
    assert_int_equal(ignore_count(ig), 1); /* "*.bin": a line of spaces is blank */
    assert_int_equal(ignore_match(ig, "x.bin", 0), 1);
    assert_int_equal(ignore_match(ig, "x.csv", 0), 0);
    ignore_free(ig);
    assert_int_equal(ignore_match(NULL, "x", 0), 0);
}

/* Each malformed line is one message naming the file and the line. */
static void test_malformed(void **state)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"ok\n[abc\n", "s/.quernignore:2: a '[' that is never closed in \"[abc\""},
        {"a\nb\nfoo\\\n", "s/.quernignore:3: a lone '\\' at its end in \"foo\\\""},
        {"!\n", "s/.quernignore:1: an empty pattern"},
        {"x\n/\n", "s/.quernignore:2: an empty pattern"},
        {"a\n\0b\n", "s/.quernignore:2: a NUL byte"},
    };
    char err[ERR_MAX], longline[IGNORE_LINE_MAX + 2];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        size_t len = strlen(bad[i].text);
        if (i == 4)
            len = 5;
        assert_null(ignore_parse(bad[i].text, len, "s/.quernignore", err, sizeof(err)));
        assert_string_equal(err, bad[i].want);
    }
    memset(longline, 'x', sizeof(longline) - 1);
    longline[sizeof(longline) - 1] = '\0';
    assert_null(ignore_parse(longline, strlen(longline), "i", err, sizeof(err)));
    assert_string_equal(err, "i:1: longer than 4096 bytes");
}

/* Many stars on a long name, and double stars between names on a deep
 * path, end quickly: each (pattern, text) position is tried once. */
static void test_many_stars(void **state)
{
    char name[1001];
    const char *text = "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b\n**/**/**/**/**/**/**/**/c\n"
                       "**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/b\n";
    ignore *ig = ignore_parse(text, strlen(text), ".quernignore", NULL, 0);

    (void)state;
    memset(name, 'a', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    assert_int_equal(ignore_match(ig, name, 0), 0);
    for (size_t i = 1; i < sizeof(name) - 1; i += 2)
        name[i] = '/';
    assert_int_equal(ignore_match(ig, name, 0), 0);
    ignore_free(ig);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_inside_only),
        cmocka_unit_test(test_blank_and_comments),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_many_stars),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
