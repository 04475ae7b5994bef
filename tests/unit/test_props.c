/* Unit tests for common/props. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/err.h"
#include "common/props.h"
#include "common/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Writes len bytes of text to a new temporary file; returns its path
 * (owned by the caller, who also unlinks it). */
static char *temp_file(const char *text, size_t len)
{
    char *path = xstrdup("/tmp/quern-test-props-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
    return path;
}

static void remove_file(char *path)
{
    unlink(path);
    xfree(path);
}

static void test_set_get(void **state)
{
    props *p = props_new();
    assert_int_equal(props_count(p), 0);
    assert_null(props_get(p, "a"));
    assert_null(props_key(p, 0));
    assert_null(props_value(p, 0));

    char key[] = "alpha";
    char value[] = "one";
    props_set(p, key, value);
    /* copies: changing the caller's strings changes nothing */
    key[0] = 'X';
    value[0] = 'X';
    assert_string_equal(props_get(p, "alpha"), "one");
    assert_null(props_get(p, "Xlpha"));

    props_set(p, "beta", "two");
    props_set(p, "alpha", "uno");
    assert_int_equal(props_count(p), 2);
    assert_string_equal(props_get(p, "alpha"), "uno");
    /* an overridden key keeps its first position */
    assert_string_equal(props_key(p, 0), "alpha");
    assert_string_equal(props_value(p, 0), "uno");
    assert_string_equal(props_key(p, 1), "beta");
    assert_string_equal(props_value(p, 1), "two");
    assert_null(props_key(p, 2));
    assert_null(props_value(p, 2));

    props_free(p);
    props_free(NULL);
}

static void test_many(void **state)
{
    props *p = props_new();
    char k[32], v[32];
    for (int i = 0; i < 200; i++) {
        snprintf(k, sizeof(k), "key.%d", i);
        snprintf(v, sizeof(v), "value %d", i);
        props_set(p, k, v);
    }
    assert_int_equal(props_count(p), 200);
    for (int i = 0; i < 200; i++) {
        snprintf(k, sizeof(k), "key.%d", i);
        snprintf(v, sizeof(v), "value %d", i);
        assert_string_equal(props_get(p, k), v);
        assert_string_equal(props_key(p, (size_t)i), k);
    }
    props_free(p);
}

static void test_load_file_forms(void **state)
{
    const char text[] = "# a comment\n"
                        "! another comment\n"
                        "\n"
                        "   \t \n"
                        "    # indented comment = not a property\n"
                        "a = 1\n"
                        "b=2\n"
                        "c: 3\n"
                        "c:3b\n"
                        "  d  =  spaced value  \n"
                        "url = http://host:8080/x?q=1\n"
                        "e: f=g\n"
                        "empty =\n"
                        "dos = crlf\r\n"
                        "key with spaces = x\n"
                        "a = override\n"
                        "last = no newline";
    char *path = temp_file(text, strlen(text));
    props *p = props_new();
    char err[ERR_MAX] = "";

    assert_int_equal(props_load_file(p, path, err, sizeof(err)), 0);
    assert_string_equal(props_get(p, "a"), "override");
    assert_string_equal(props_get(p, "b"), "2");
    assert_string_equal(props_get(p, "c"), "3b");
    assert_string_equal(props_get(p, "d"), "spaced value");
    assert_string_equal(props_get(p, "url"), "http://host:8080/x?q=1");
    assert_string_equal(props_get(p, "e"), "f=g");
    assert_string_equal(props_get(p, "empty"), "");
    assert_string_equal(props_get(p, "dos"), "crlf");
    assert_string_equal(props_get(p, "key with spaces"), "x");
    assert_string_equal(props_get(p, "last"), "no newline");
    assert_null(props_get(p, "# a comment"));
    assert_null(props_get(p, "# indented comment"));

    /* insertion order, overridden keys in their first place */
    const char *order[] = {"a",   "b", "c", "d", "url", "e", "empty", "dos", "key with spaces",
                           "last"};
    assert_int_equal(props_count(p), sizeof(order) / sizeof(order[0]));
    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
        assert_string_equal(props_key(p, i), order[i]);

    props_free(p);
    remove_file(path);
}

static void test_load_file_overrides_and_args(void **state)
{
    const char text[] = "threads = 4\nduration = 10s\n";
    char *path = temp_file(text, strlen(text));
    props *p = props_new();
    char err[ERR_MAX];

    props_set(p, "duration", "1s");
    props_set(p, "early", "yes");
    assert_int_equal(props_load_file(p, path, err, sizeof(err)), 0);
    /* the file overrides what was set before it */
    assert_string_equal(props_get(p, "duration"), "10s");
    assert_string_equal(props_get(p, "early"), "yes");
    assert_string_equal(props_key(p, 0), "duration");
    assert_string_equal(props_key(p, 2), "threads");

    /* and -p overrides the file */
    assert_int_equal(props_set_arg(p, "threads=8", err, sizeof(err)), 0);
    assert_string_equal(props_get(p, "threads"), "8");
    assert_int_equal(props_count(p), 3);

    props_free(p);
    remove_file(path);
}

static void test_load_file_bom(void **state)
{
    const char text[] = "\xef\xbb\xbfname = bom\n";
    char *path = temp_file(text, strlen(text));
    props *p = props_new();
    assert_int_equal(props_load_file(p, path, NULL, 0), 0);
    assert_string_equal(props_get(p, "name"), "bom");
    props_free(p);
    remove_file(path);
}

/* Loads text, expecting failure with an error that starts "PATH:LINE: "
 * and contains want; checks p is unchanged. */
static void load_fails(const char *text, size_t len, int line, const char *want)
{
    char *path = temp_file(text, len);
    props *p = props_new();
    char err[ERR_MAX] = "";
    char prefix[128];

    props_set(p, "keep", "me");
    assert_int_equal(props_load_file(p, path, err, sizeof(err)), -1);
    snprintf(prefix, sizeof(prefix), "%s:%d: ", path, line);
    if (strncmp(err, prefix, strlen(prefix)) != 0)
        fail_msg("error \"%s\" does not start with \"%s\"", err, prefix);
    if (strstr(err, want) == NULL)
        fail_msg("error \"%s\" lacks \"%s\"", err, want);
    /* nothing from the file was applied, not even the good lines */
    assert_int_equal(props_count(p), 1);
    assert_string_equal(props_get(p, "keep"), "me");
    assert_null(props_get(p, "good"));

    props_free(p);
    remove_file(path);
}

static void test_load_file_errors(void **state)
{
    const char nosep[] = "good = 1\n# fine\nno separator here\nlater = 2\n";
    load_fails(nosep, strlen(nosep), 3, "no separator here");

    const char nokey[] = "good = 1\n = value\n";
    load_fails(nokey, strlen(nokey), 2, "empty key");

    const char colon[] = "good = 1\n\n\n: value\n";
    load_fails(colon, strlen(colon), 4, "empty key");

    const char nul[] = "good = 1\nbad\0 = 2\n";
    load_fails(nul, sizeof(nul) - 1, 2, "NUL");

    size_t biglen = PROPS_LINE_MAX + 100;
    char *big = xmalloc(biglen);
    memcpy(big, "good = 1\nk = ", 13);
    memset(big + 13, 'v', biglen - 13);
    big[biglen - 1] = '\n';
    load_fails(big, biglen, 2, "longer than");
    xfree(big);
}

static void test_load_file_missing(void **state)
{
    props *p = props_new();
    char err[ERR_MAX] = "";
    const char *path = "/nonexistent/quern/dir/quern.properties";
    assert_int_equal(props_load_file(p, path, err, sizeof(err)), -1);
    assert_string_equal(err, "cannot open /nonexistent/quern/dir/quern.properties: "
                             "No such file or directory");
    assert_int_equal(props_count(p), 0);
    /* a NULL error buffer is fine */
    assert_int_equal(props_load_file(p, path, NULL, 0), -1);
    props_free(p);
}

static void test_set_arg(void **state)
{
    props *p = props_new();
    char err[ERR_MAX];

    assert_int_equal(props_set_arg(p, "k=v", err, sizeof(err)), 0);
    assert_string_equal(props_get(p, "k"), "v");
    assert_int_equal(props_set_arg(p, "  spaced  =  out  ", err, sizeof(err)), 0);
    assert_string_equal(props_get(p, "spaced"), "out");
    assert_int_equal(props_set_arg(p, "empty=", err, sizeof(err)), 0);
    assert_string_equal(props_get(p, "empty"), "");
    assert_int_equal(props_set_arg(p, "url=http://h/?a=b", err, sizeof(err)), 0);
    assert_string_equal(props_get(p, "url"), "http://h/?a=b");
    /* ':' is not a separator on the command line */
    assert_int_equal(props_set_arg(p, "a:b=c", err, sizeof(err)), 0);
    assert_string_equal(props_get(p, "a:b"), "c");
    assert_int_equal(props_set_arg(p, "k=again", err, sizeof(err)), 0);
    assert_string_equal(props_get(p, "k"), "again");
    assert_string_equal(props_key(p, 0), "k");
    assert_int_equal(props_count(p), 5);

    /* errors leave p unchanged */
    assert_int_equal(props_set_arg(p, "novalue", err, sizeof(err)), -1);
    assert_string_equal(err, "bad property \"novalue\": expected key=value");
    assert_int_equal(props_set_arg(p, "k: v", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "expected key=value"));
    assert_int_equal(props_set_arg(p, "=v", err, sizeof(err)), -1);
    assert_string_equal(err, "bad property \"=v\": empty key");
    assert_int_equal(props_set_arg(p, "   =v", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "empty key"));
    assert_int_equal(props_set_arg(p, "", NULL, 0), -1);
    assert_int_equal(props_count(p), 5);
    assert_string_equal(props_get(p, "k"), "again");

    props_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_get),
        cmocka_unit_test(test_many),
        cmocka_unit_test(test_load_file_forms),
        cmocka_unit_test(test_load_file_overrides_and_args),
        cmocka_unit_test(test_load_file_bom),
        cmocka_unit_test(test_load_file_errors),
        cmocka_unit_test(test_load_file_missing),
        cmocka_unit_test(test_set_arg),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
