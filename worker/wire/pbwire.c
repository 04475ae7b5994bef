/* pbwire — the protobuf wire format read field by field; see pbwire.h. */
#include "worker/wire/pbwire.h"

int pbwire_varint(pbwire *r, uint64_t *v)
{
    uint64_t x = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end)
            return 0;
        uint8_t b = *r->p++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 1;
        }
    }
    return 0;
}

int pbwire_next(pbwire *r, pbwire_field *f)
{
    uint64_t tag;
    if (r->p >= r->end)
        return 0;
    if (!pbwire_varint(r, &tag) || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
        return -1;
    f->num = (uint32_t)(tag >> 3);
    f->wt = (int)(tag & 7);
    f->p = NULL;
    f->n = 0;
    f->v = 0;
    switch (f->wt) {
    case 0:
        return pbwire_varint(r, &f->v) ? 1 : -1;
    case 1:
    case 5: {
        size_t w = f->wt == 1 ? 8 : 4;
        if ((size_t)(r->end - r->p) < w)
            return -1;
        for (size_t i = 0; i < w; i++)
            f->v |= (uint64_t)r->p[i] << (8 * i);
        r->p += w;
        return 1;
    }
    case 2:
        if (!pbwire_varint(r, &f->v) || f->v > (uint64_t)(r->end - r->p))
            return -1;
        f->p = r->p;
        f->n = (size_t)f->v;
        r->p += f->n;
        return 1;
    default:
        return -1; /* groups (3, 4) are deprecated and refused; 6, 7 do not exist */
    }
}
