/* fuzz_pbcodec — the protobuf decoder (worker/pbcodec, worker/pbwire) as a
 * gRPC reply reaches it, over tests/e2e/scripts/grpc/types.proto's qt.All
 * (every field type, maps, oneof, recursion).
 *
 * Input: the message's bytes. Checks: pbcodec_decode pushes exactly one
 * table or nothing with a message; a decoded table encodes again (its
 * values are of the right types by construction), and that encoding
 * decodes and encodes again to the same length (map members may come in
 * another order). */
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "worker/lua/pbcodec.h"
#include "tests/fuzz/fuzz_util.h"

static lua_State *L;
static pbschema *S;
static int All;

static void init(void)
{
    static uint8_t set[8192];
    char err[ERR_MAX];
    FILE *f = fopen("tests/unit/data/pb/types.pb", "rb");
    size_t n;

    fuzz_check(f != NULL);
    n = fread(set, 1, sizeof(set), f);
    fclose(f);
    S = pbschema_new();
    fuzz_check(pbschema_add(S, set, n, err, sizeof(err)) == 0);
    All = pbschema_msg(S, "qt.All");
    fuzz_check(All >= 0);
    L = luaL_newstate();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[ERR_MAX];
    pbbuf b1 = {0}, b2 = {0};
    int top;

    if (L == NULL)
        init();
    top = lua_gettop(L);
    err[0] = '\0';
    if (pbcodec_decode(L, S, All, data, size, err, sizeof(err)) != 0) {
        fuzz_check(lua_gettop(L) == top && err[0] != '\0');
        return 0;
    }
    fuzz_check(lua_gettop(L) == top + 1 && lua_istable(L, -1));
    fuzz_check(pbcodec_encode(L, -1, S, All, &b1, err, sizeof(err)) == 0);
    fuzz_check(lua_gettop(L) == top + 1);
    fuzz_check(pbcodec_decode(L, S, All, b1.p, b1.len, err, sizeof(err)) == 0);
    fuzz_check(pbcodec_encode(L, -1, S, All, &b2, err, sizeof(err)) == 0);
    fuzz_check(b1.len == b2.len);
    pbbuf_free(&b1);
    pbbuf_free(&b2);
    lua_settop(L, top);
    lua_gc(L, LUA_GCSTEP, 0);
    return 0;
}
