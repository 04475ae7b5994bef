/* Unit tests for worker/lcrypto: digests of "abc" (FIPS 180 and RFC 1321's
 * vectors) in every encoding, HMAC against RFC 4231, 2202 and 2104, PBKDF2
 * against RFC 7914 and RFC 6070, the contexts reused across calls and keys,
 * random bytes and version 4 UUIDs. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <lauxlib.h>
#include <lualib.h>
#include <string.h>

#include "worker/lua/lcrypto.h"

#include "tests/unit/luastate.h"

static void run(const char *script)
{
    luastate_run(lcrypto_register, script);
}

static void test_digests(void **state)
{
    run("local C = quern.crypto\n"
        "assert(C.sha256('abc') == "
        "'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')\n"
        "assert(C.sha1('abc') == 'a9993e364706816aba3e25717850c26c9cd0d89d')\n"
        "assert(C.md5('abc') == '900150983cd24fb0d6963f7d28e17f72')\n"
        "assert(C.sha384('abc') == 'cb00753f45a35e8bb5a03d699ac65007272c32ab0eded163"
        "1a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7')\n"
        "assert(C.sha512('abc') == "
        "'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
        "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f')\n"
        "assert(C.sha256('') == "
        "'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')\n"
        /* the context is reused: the same answer every time, whatever came between */
        "for i = 1, 3 do\n"
        "  assert(C.sha256('abc') == C.sha256('ab' .. 'c'))\n"
        "  assert(C.sha256('x') ~= C.sha256('abc'))\n"
        "end\n"
        "assert(C.sha256('abc', 'hex') == C.sha256('abc'))\n"
        "assert(C.sha256('abc', 'base64') == 'ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=')\n"
        "assert(C.sha256('abc', 'base64url') == 'ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0=')\n"
        "assert(C.sha256('abc', 'base64rawurl') == 'ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0')\n"
        "local raw = C.sha256('abc', 'binary')\n"
        "assert(#raw == 32 and raw:byte(1) == 0xba and raw:byte(32) == 0xad)\n"
        "assert(C.md5('abcd', 'base64') == '4vxxTEcn7pOV8yTNLn8zHw==')\n"
        "assert(C.md5('a\\0b') ~= C.md5('a'))\n" /* any bytes, NUL included */
        "local ok, e = pcall(C.sha256, 'abc', 'b64')\n"
        "assert(not ok and e:find(\"invalid option 'b64'\"), e)\n"
        "ok, e = pcall(C.sha256)\n"
        "assert(not ok and e:find('string expected'), e)\n");
}

static void test_hmac(void **state)
{
    run("local C = quern.crypto\n"
        /* RFC 4231 test cases 1 and 2 */
        "local k1 = string.rep('\\x0b', 20)\n"
        "local t1 = 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7'\n"
        "local t2 = '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843'\n"
        "local msg2 = 'what do ya want for nothing?'\n"
        "assert(C.hmac('sha256', k1, 'Hi There') == t1)\n"
        "assert(C.hmac('sha256', 'Jefe', msg2) == t2)\n"
        "assert(C.hmac('sha512', 'Jefe', msg2) == '164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831f"
        "d610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737')\n"
        "assert(C.hmac('sha384', 'Jefe', msg2) == 'af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b"
        "47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649')\n"
        /* RFC 2202 and RFC 2104 */
        "assert(C.hmac('sha1', 'Jefe', msg2) == 'effcdf6ae5eb2fa2d27416d5f184df9c259a7c79')\n"
        "assert(C.hmac('md5', 'Jefe', msg2) == '750c783e6ab0b503eaa86e310a5db738')\n"
        /* one context, many keys: each call has its own, an empty one too */
        "local empty = 'b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad'\n"
        "for i = 1, 3 do\n"
        "  assert(C.hmac('sha256', k1, 'Hi There') == t1)\n"
        "  assert(C.hmac('sha256', '', '') == empty)\n"
        "  assert(C.hmac('sha256', 'Jefe', msg2) == t2)\n"
        "end\n"
        "assert(#C.hmac('sha256', 'k', 'd', 'binary') == 32)\n"
        "assert(C.hmac('sha256', 'Jefe', msg2, 'base64') == "
        "'W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM=')\n"
        "local ok, e = pcall(C.hmac, 'sha3', 'k', 'd')\n"
        "assert(not ok and e:find(\"invalid option 'sha3'\"), e)\n");
}

static void test_pbkdf2(void **state)
{
    run("local C = quern.crypto\n"
        /* PBKDF2-HMAC-SHA-256: RFC 7914's section 11, and RFC 6070's inputs */
        "assert(C.pbkdf2('sha256', 'passwd', 'salt', 1, 64) == "
        "'55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
        "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783')\n"
        "assert(C.pbkdf2('sha256', 'Password', 'NaCl', 80000, 64) == "
        "'4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56"
        "a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d')\n"
        "assert(C.pbkdf2('sha256', 'password', 'salt', 1, 32) == "
        "'120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b')\n"
        "assert(C.pbkdf2('sha256', 'password', 'salt', 2, 32) == "
        "'ae4d0c95af6b46d32d0adff928f06dd02a303f8ef3c251dfd6e2d85a95474c43')\n"
        "assert(C.pbkdf2('sha256', 'password', 'salt', 4096, 32) == "
        "'c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a')\n"
        /* more than one block of output, and NUL bytes in password and salt */
        "assert(C.pbkdf2('sha256', 'passwordPASSWORDpassword', "
        "'saltSALTsaltSALTsaltSALTsaltSALTsalt', 4096, 40) == "
        "'348c89dbcbd32b2f32d814b8116e84cf2b17347ebc1800181c4e2a1fb8dd53e1c635518c7dac47e9')\n"
        "assert(C.pbkdf2('sha256', 'pass\\0word', 'sa\\0lt', 4096, 16) == "
        "'89b69d0516f829893c696226650a8687')\n"
        /* RFC 6070 itself: SHA-1 */
        "assert(C.pbkdf2('sha1', 'password', 'salt', 4096, 20) == "
        "'4b007901b765489abead49d926f721d065a429c1')\n"
        "local raw = C.pbkdf2('sha256', 'password', 'salt', 1, 32, 'binary')\n"
        "assert(#raw == 32 and raw:byte(1) == 0x12 and raw:byte(32) == 0x7b)\n"
        "assert(C.pbkdf2('sha256', 'password', 'salt', 1, 32, 'base64') == "
        "'Eg+2z/z4syxD5yJSVsT4N6hlSMkszDVICAWYfLcL4Xs=')\n"
        /* the bounds */
        "for _, args in ipairs{ {0, 32}, {1000001, 32}, {1, 0}, {1, 1025} } do\n"
        "  local ok, e = pcall(C.pbkdf2, 'sha256', 'p', 's', args[1], args[2])\n"
        "  assert(not ok and e:find('must be 1 to'), e)\n"
        "end\n"
        "assert(#C.pbkdf2('sha512', 'p', 's', 1, 1024, 'binary') == 1024)\n"
        "local ok, e = pcall(C.pbkdf2, 'sha3', 'p', 's', 1, 32)\n"
        "assert(not ok and e:find(\"invalid option 'sha3'\"), e)\n");
}

static void test_random(void **state)
{
    run("local C = quern.crypto\n"
        "local a, b = C.random_bytes(32), C.random_bytes(32)\n"
        "assert(#a == 32 and #b == 32 and a ~= b)\n"
        "assert(C.random_bytes(0) == '')\n"
        "assert(#C.random_bytes(65536) == 65536)\n"
        "local h = C.random_bytes(16, 'hex')\n"
        "assert(#h == 32 and h:match('^%x+$'))\n"
        "for _, n in ipairs{ -1, 65537 } do\n"
        "  local ok, e = pcall(C.random_bytes, n)\n"
        "  assert(not ok and e:find('n must be 0 to 65536'), e)\n"
        "end\n"
        /* 1000 values of 16 bytes: a repeat would be a broken generator */
        "local seen = {}\n"
        "for i = 1, 1000 do\n"
        "  local r = C.random_bytes(16)\n"
        "  assert(not seen[r]); seen[r] = true\n"
        "end\n");
}

static void test_uuid(void **state)
{
    char u[37];
    static const char hexd[] = "0123456789abcdef";

    for (int i = 0; i < 100; i++) {
        assert_int_equal(lcrypto_uuid(u), 0);
        assert_int_equal(strlen(u), 36);
        for (int k = 0; k < 36; k++) {
            if (k == 8 || k == 13 || k == 18 || k == 23)
                assert_int_equal(u[k], '-');
            else
                assert_non_null(memchr(hexd, u[k], 16));
        }
        assert_int_equal(u[14], '4');              /* version 4 */
        assert_non_null(memchr("89ab", u[19], 4)); /* variant 10 */
    }
    run("local C = quern.crypto\n"
        "local pat = "
        "'^%x%x%x%x%x%x%x%x%-%x%x%x%x%-4%x%x%x%-[89ab]%x%x%x%-%x%x%x%x%x%x%x%x%x%x%x%x$'\n"
        "local seen, variants = {}, {}\n"
        "for i = 1, 1000 do\n"
        "  local u = C.uuid()\n"
        "  assert(u:match(pat) and u == u:lower(), u)\n"
        "  assert(not seen[u]); seen[u] = true\n"
        "  variants[u:sub(20, 20)] = true\n"
        "end\n"
        /* the variant's free bit is random: 8, 9, a and b all come in 1000 draws */
        "assert(variants['8'] and variants['9'] and variants['a'] and variants['b'])\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_digests), cmocka_unit_test(test_hmac), cmocka_unit_test(test_pbkdf2),
        cmocka_unit_test(test_random),  cmocka_unit_test(test_uuid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
