/* Unit tests for worker/pbschema: tests/unit/data/pb/types.pb (protoc's
 * descriptor set of types.proto) read into messages, fields, enums and
 * methods; malformed and incomplete sets refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "worker/wire/pbschema.h"

static uint8_t set[8192];
static size_t setlen;

static int setup(void **state)
{
    FILE *f = fopen("tests/unit/data/pb/types.pb", "rb");
    if (f == NULL)
        return -1;
    setlen = fread(set, 1, sizeof(set), f);
    fclose(f);
    return setlen > 0 && setlen < sizeof(set) ? 0 : -1;
}

static void test_index(void **state)
{
    char err[ERR_MAX];
    pbschema *s = pbschema_new();
    const pbmsg *m;
    const pbfield *f;
    const pbmethod *meth;

    assert_int_equal(pbschema_add(s, set, setlen, err, sizeof(err)), 0);
    assert_true(pbschema_msg(s, "qt.All") >= 0);
    assert_int_equal(pbschema_msg(s, ".qt.All"), pbschema_msg(s, "qt.All"));
    assert_int_equal(pbschema_msg(s, "qt.Nope"), -1);
    m = &s->msgs[pbschema_msg(s, "qt.All")];
    assert_int_equal(m->proto3, 1);

    f = pbschema_field(m, "f_sint64", 8);
    assert_non_null(f);
    assert_int_equal(f->number, 18);
    assert_int_equal(f->type, PB_SINT64);
    assert_false(f->presence);
    assert_ptr_equal(pbschema_field_num(m, 18), f);

    f = pbschema_field(m, "r_int32", 7);
    assert_true(f->repeated && f->packed);
    f = pbschema_field(m, "r_unpacked", 10);
    assert_true(f->repeated && !f->packed);
    f = pbschema_field(m, "r_string", 8);
    assert_true(f->repeated && !f->packed);

    f = pbschema_field(m, "inner", 5);
    assert_int_equal(f->type, PB_MESSAGE);
    assert_string_equal(s->msgs[f->msg].name, "qt.Inner");
    assert_true(f->presence);

    f = pbschema_field(m, "m_inner", 7);
    assert_true(f->repeated);
    assert_true(s->msgs[f->msg].map_entry);
    assert_string_equal(s->msgs[f->msg].name, "qt.All.MInnerEntry");

    f = pbschema_field(m, "f_enum", 6);
    assert_string_equal(s->enums[f->enm].name, "qt.Color");
    assert_int_equal(s->enums[f->enm].nvalues, 4);
    assert_string_equal(s->enums[f->enm].values[3].name, "NEG");
    assert_int_equal(s->enums[f->enm].values[3].number, -3);

    f = pbschema_field(m, "o_id", 4);
    assert_true(f->oneof >= 0 && f->presence);
    assert_int_equal(pbschema_field(m, "o_name", 6)->oneof, f->oneof);
    f = pbschema_field(m, "opt", 3);
    assert_true(f->presence);
    assert_true(f->oneof != pbschema_field(m, "o_id", 4)->oneof);

    meth = pbschema_method(s, "qt.Types/Echo");
    assert_non_null(meth);
    assert_ptr_equal(pbschema_method(s, "/qt.Types/Echo"), meth);
    assert_int_equal(meth->in, pbschema_msg(s, "qt.All"));
    assert_false(meth->server_streaming);
    meth = pbschema_method(s, "qt.Types/Stream");
    assert_true(meth->server_streaming && !meth->client_streaming);
    meth = pbschema_method(s, "qt.Types/Sum");
    assert_true(!meth->server_streaming && meth->client_streaming);
    meth = pbschema_method(s, "qt.Types/Chat");
    assert_true(meth->server_streaming && meth->client_streaming);
    assert_null(pbschema_method(s, "qt.Types/Nope"));
    pbschema_free(s);
}

static void test_refused(void **state)
{
    char err[ERR_MAX];
    pbschema *s;

    /* every truncation of a valid set is refused or read, never past its end */
    for (size_t n = 0; n < setlen; n++) {
        s = pbschema_new();
        err[0] = '\0';
        if (pbschema_add(s, set, n, err, sizeof(err)) != 0)
            assert_non_null(strstr(err, "descriptor set"));
        pbschema_free(s);
    }
    s = pbschema_new();
    assert_int_equal(pbschema_add(s, (const uint8_t *)"\x0a\x05zz", 4, err, sizeof(err)), -1);
    pbschema_free(s);
    /* a field whose message type is not in the set: file { message_type { name "M"
     * field { name "x" number 1 type MESSAGE type_name ".Gone" } } } */
    static const uint8_t missing[] = {0x0a, 0x17, 0x22, 0x15, 0x0a, 0x01, 'M',  0x12, 0x10,
                                      0x0a, 0x01, 'x',  0x18, 0x01, 0x28, 0x0b, 0x32, 0x05,
                                      '.',  'G',  'o',  'n',  'e',  0x20, 0x01};
    s = pbschema_new();
    assert_int_equal(pbschema_add(s, missing, sizeof(missing), err, sizeof(err)), -1);
    assert_non_null(strstr(err, ".Gone"));
    pbschema_free(s);
    pbschema_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
