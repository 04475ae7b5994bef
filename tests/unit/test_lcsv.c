/* Unit tests for worker/lcsv: the CSV parser on inputs that end abruptly, on
 * long, multi-line and too many fields, and
 * quern.csv over a real file.
 *
 * The parser's own functions are static: the test includes the .c (as h2o's
 * unit tests do). Each input is copied into a buffer of exactly its length,
 * so that under ASan a read at the end of the input is a heap overflow. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "worker/lua/lcsv.c"
#include "common/err.h"

#include <lualib.h>
#include <stdlib.h>
#include <unistd.h>

/* Parses len bytes of text (an exact-size copy). Returns the status of the
 * last csv_record call (0 end of input, -1 error) and writes every record
 * into out as "f1|f2;f1|f2;" (quoted fields as they unescape), and the error
 * into err. */
static int parse(const char *text, size_t len, char *out, size_t outlen, char *err, size_t errlen)
{
    char *buf = xmalloc(len ? len : 1);
    csv_in *in = xcalloc(1, sizeof(*in));
    size_t used = 0;
    int st;

    memcpy(buf, text, len);
    in->p = buf;
    in->end = buf + len;
    in->line = 1;
    in->name = "t.csv";
    out[0] = '\0';
    err[0] = '\0';
    while ((st = csv_record(in, err, errlen)) == 1) {
        for (int i = 0; i < in->nf; i++)
            used += (size_t)snprintf(out + used, outlen - used, "%s%.*s", i ? "|" : "",
                                     (int)in->f[i].len, in->f[i].s);
        used += (size_t)snprintf(out + used, outlen - used, ";");
        assert_true(used < outlen);
    }
    xfree(in);
    xfree(buf);
    return st;
}

#define PARSE(lit, out, err) parse((lit), sizeof(lit) - 1, (out), sizeof(out), (err), sizeof(err))

static void test_trailing_comma_at_eof(void **state)
{
    char out[256], err[ERR_MAX];

    /* The input of the heap overflow: a field starts at the end of the input. */
    assert_int_equal(PARSE("user,pass\nu1,", out, err), 0);
    assert_string_equal(out, "user|pass;u1|;");
    assert_int_equal(PARSE(",", out, err), 0);
    assert_string_equal(out, "|;");
    assert_int_equal(PARSE("a,b\n,,", out, err), 0);
    assert_string_equal(out, "a|b;||;");
    assert_int_equal(PARSE("a,\"b\",", out, err), 0);
    assert_string_equal(out, "a|b|;");
}

static void test_quote_at_eof(void **state)
{
    char out[256], err[ERR_MAX];

    /* A lone quote, and a quote that opens a field at the end. */
    assert_int_equal(PARSE("\"", out, err), -1);
    assert_non_null(strstr(err, "t.csv:1: quoted field not closed"));
    assert_int_equal(PARSE("user,pass\nu1,\"", out, err), -1);
    assert_non_null(strstr(err, "t.csv:2: quoted field not closed"));
    assert_int_equal(PARSE("a,\"x\"\"", out, err), -1);
    assert_non_null(strstr(err, "quoted field not closed"));
    /* A quote closing a field as the last byte. */
    assert_int_equal(PARSE("a,\"x\"", out, err), 0);
    assert_string_equal(out, "a|x;");
    assert_int_equal(PARSE("\"\"\"\"", out, err), 0);
    assert_string_equal(out, "\";");
    /* A quote in an unquoted field, last. */
    assert_int_equal(PARSE("a,b\"", out, err), -1);
    assert_non_null(strstr(err, "quote in an unquoted field"));
}

static void test_empty_quoted_at_eof(void **state)
{
    char out[256], err[ERR_MAX];

    assert_int_equal(PARSE("user,pass\nu1,\"\"", out, err), 0);
    assert_string_equal(out, "user|pass;u1|;");
    assert_int_equal(PARSE("\"\"", out, err), 0);
    assert_string_equal(out, ";");
    assert_int_equal(PARSE("\"\",\"\"", out, err), 0);
    assert_string_equal(out, "|;");
}

static void test_crlf_at_eof(void **state)
{
    char out[256], err[ERR_MAX];

    assert_int_equal(PARSE("a,b\r\n1,2\r\n", out, err), 0);
    assert_string_equal(out, "a|b;1|2;");
    assert_int_equal(PARSE("a,b\r\n1,\r\n", out, err), 0);
    assert_string_equal(out, "a|b;1|;");
    assert_int_equal(PARSE("a,b\r\n1,\"2\"\r\n", out, err), 0);
    assert_string_equal(out, "a|b;1|2;");
    assert_int_equal(PARSE("a,b\r\n1,\"2\"\r", out, err), 0);
    assert_string_equal(out, "a|b;1|2;");
    assert_int_equal(PARSE("a,b\r\n1,2\r", out, err), 0);
    assert_string_equal(out, "a|b;1|2;");
    assert_int_equal(PARSE("a,\r", out, err), 0);
    assert_string_equal(out, "a|;");
    assert_int_equal(PARSE("\r", out, err), 0);
    assert_string_equal(out, ";");
    assert_int_equal(PARSE("\"a\"\rb", out, err), -1);
    assert_non_null(strstr(err, "unexpected character after a closing quote"));
}

static void test_well_formed(void **state)
{
    char out[256], err[ERR_MAX];

    assert_int_equal(PARSE("", out, err), 0);
    assert_string_equal(out, "");
    assert_int_equal(PARSE("a,b\n1,\"x,\"\"y\"\"\nz\"\n", out, err), 0);
    assert_string_equal(out, "a|b;1|x,\"y\"\nz;");
    assert_int_equal(PARSE("a\n\nb", out, err), 0);
    assert_string_equal(out, "a;;b;");
}

/* Quoted fields keep their CR, LF and CRLF; a very long field, plain or
 * quoted with doubled quotes, is read whole. */
static void test_long_and_multiline_fields(void **state)
{
    size_t big = 200000, len;
    char *text = xmalloc(2 * big + 16), *out = xmalloc(2 * big + 16), err[ERR_MAX], small[64];

    assert_int_equal(PARSE("\"a\r\nb\",\"c\rd\"\r\ne", small, err), 0);
    assert_string_equal(small, "a\r\nb|c\rd;e;");
    /* Plain. */
    memset(text, 'x', big);
    memcpy(text + big, ",y", 2);
    assert_int_equal(parse(text, big + 2, out, 2 * big + 16, err, sizeof(err)), 0);
    assert_int_equal(strlen(out), big + 3);
    assert_int_equal(strspn(out, "x"), big);
    assert_string_equal(out + big, "|y;");
    /* Quoted, every other byte a doubled quote. */
    len = 0;
    text[len++] = '"';
    for (size_t i = 0; i < big / 2; i++) {
        text[len++] = 'q';
        text[len++] = '"';
        text[len++] = '"';
    }
    text[len++] = '"';
    assert_int_equal(parse(text, len, out, 2 * big + 16, err, sizeof(err)), 0);
    assert_int_equal(strlen(out), big + 1);
    assert_int_equal(memcmp(out, "q\"q\"", 4), 0);
    assert_string_equal(out + big, ";");
    /* Quoted and never closed: the end of the file inside the quotes. */
    assert_int_equal(parse(text, len - 1, out, 2 * big + 16, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "t.csv:1: quoted field not closed"));
    xfree(text);
    xfree(out);
}

/* A record of more than CSV_MAX_FIELDS fields is refused with its line. */
static void test_too_many_fields(void **state)
{
    size_t n = CSV_MAX_FIELDS + 1;
    char *text = xmalloc(n + 8), out[16], err[ERR_MAX];

    memcpy(text, "a\n", 2);
    memset(text + 2, ',', n - 1);
    assert_int_equal(parse(text, n + 1, out, sizeof(out), err, sizeof(err)), -1);
    assert_non_null(strstr(err, "t.csv:2: more than 1024 fields"));
    /* Exactly the maximum is fine. */
    {
        char *big = xmalloc(64 * CSV_MAX_FIELDS);
        assert_int_equal(
            parse(text + 2, CSV_MAX_FIELDS - 1, big, 64 * CSV_MAX_FIELDS, err, sizeof(err)), 0);
        xfree(big);
    }
    xfree(text);
}

/* Writes text to a new temporary file; returns its path (owned by the caller,
 * who unlinks it). */
static char *temp_csv(const char *text, size_t len)
{
    char *path = xstrdup("/tmp/quern-test-lcsv-XXXXXX");
    int fd = mkstemp(path);

    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
    return path;
}

/* The message quern.csv raises on the file holding text (len bytes). */
static void csv_error(const char *text, size_t len, const char *want)
{
    char *path = temp_csv(text, len);
    lua_State *L = luaL_newstate();

    luaL_openlibs(L);
    *(void **)lua_getextraspace(L) = NULL;
    lua_pushcfunction(L, lcsv_new);
    lua_pushstring(L, path);
    assert_int_equal(lua_pcall(L, 1, 1, 0), LUA_ERRRUN);
    if (strstr(lua_tostring(L, -1), want) == NULL)
        fail_msg("\"%s\" does not say \"%s\"", lua_tostring(L, -1), want);
    lua_close(L);
    unlink(path);
    xfree(path);
}

/* quern.csv(path) then f:count() and f:row(n) through Lua, with the same
 * file: a field that starts at the end of the file is an empty string. */
static void test_quern_csv_trailing_comma(void **state)
{
    static const char text[] = "user,pass\nu1,";
    char *path = temp_csv(text, sizeof(text) - 1);
    lua_State *L = luaL_newstate();

    luaL_openlibs(L);
    *(void **)lua_getextraspace(L) = NULL; /* no VU: the script is loading */
    lua_pushcfunction(L, lcsv_new);
    lua_setglobal(L, "csv");
    lua_pushstring(L, path);
    lua_setglobal(L, "path");
    assert_int_equal(luaL_dostring(L, "local f = csv(path)\n"
                                      "local r = f:row(1)\n"
                                      "return f:count(), r.user, r.pass"),
                     LUA_OK);
    assert_int_equal(lua_tointeger(L, -3), 1);
    assert_string_equal(lua_tostring(L, -2), "u1");
    assert_string_equal(lua_tostring(L, -1), "");
    lua_close(L);
    unlink(path);
    xfree(path);
}

/* A Lua allocator whose new bytes are all quotes: what a block reused from
 * an earlier string may hold. */
static void *quote_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    char *p;

    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    p = realloc(ptr, nsize);
    if (p != NULL && (ptr == NULL || nsize > osize))
        memset(p + (ptr == NULL ? 0 : osize), '"', nsize - (ptr == NULL ? 0 : osize));
    return p;
}

/* The file buffer has a byte more than the file; when that byte is a quote,
 * a field starting at the end of the file must still be empty (it once
 * opened a quoted field past the buffer and wrote beyond it). */
static void test_quern_csv_stale_quote(void **state)
{
    static const char text[] = "user,pass\nu1,";
    char *path = temp_csv(text, sizeof(text) - 1);
    lua_State *L = lua_newstate(quote_alloc, NULL);

    luaL_openlibs(L);
    *(void **)lua_getextraspace(L) = NULL;
    lua_pushcfunction(L, lcsv_new);
    lua_setglobal(L, "csv");
    lua_pushstring(L, path);
    lua_setglobal(L, "path");
    assert_int_equal(luaL_dostring(L, "local f = csv(path)\n"
                                      "return f:count(), f:row(1).pass"),
                     LUA_OK);
    assert_int_equal(lua_tointeger(L, -2), 1);
    assert_string_equal(lua_tostring(L, -1), "");
    lua_close(L);
    unlink(path);
    xfree(path);
}

/* A quote at the end of the file is an unclosed quoted field, not a read
 * past the data. */
static void test_quern_csv_quote_at_eof(void **state)
{
    static const char text[] = "user,pass\nu1,\"";

    csv_error(text, sizeof(text) - 1, ":2: quoted field not closed");
}

/* Files with nothing to feed, or rows of another width, are refused when
 * the script loads. */
static void test_quern_csv_refused(void **state)
{
    csv_error("", 0, "has no data rows");
    csv_error("\n\r\n\n", 4, "has no data rows");
    csv_error("user,pass\n", 10, "has no data rows");
    csv_error("user,pass\nu1\n", 13, ":2: 1 field, expected 2 (as on line 1)");
    csv_error("user,user\nu1,p1\n", 16, "column \"user\" appears twice");
    csv_error(",pass\nu1,p1\n", 12, "column 1 of the header has no name");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trailing_comma_at_eof),
        cmocka_unit_test(test_quote_at_eof),
        cmocka_unit_test(test_empty_quoted_at_eof),
        cmocka_unit_test(test_crlf_at_eof),
        cmocka_unit_test(test_well_formed),
        cmocka_unit_test(test_quern_csv_trailing_comma),
        cmocka_unit_test(test_quern_csv_stale_quote),
        cmocka_unit_test(test_quern_csv_quote_at_eof),
        cmocka_unit_test(test_long_and_multiline_fields),
        cmocka_unit_test(test_too_many_fields),
        cmocka_unit_test(test_quern_csv_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
