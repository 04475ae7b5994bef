/* fuzz_hist — the HDR histogram's encoded form (common/hist), as it comes
 * in every Interval from workers and agents and out of the database.
 *
 * Input: an encoded histogram. Checks: what decodes re-encodes to bytes
 * that decode to the same count, min, max and sum, and encode again to the
 * same bytes; percentiles lie within [min, max]; a refused buffer leaves a
 * decoded histogram empty and a merge target unchanged (hist.h's promise);
 * a buffer that merges adds its count. */
#include <string.h>

#include "common/hist.h"
#include "tests/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hist *h = hist_new(), *back = hist_new(), *dst = hist_new();
    size_t cap = hist_encoded_size_max();
    uint8_t *enc = malloc(cap), *enc2 = malloc(cap);
    size_t n, n2;

    fuzz_check(enc != NULL && enc2 != NULL);
    hist_record_n(dst, 1234, 3);
    hist_record(dst, 7);
    if (hist_decode(h, data, size) == 0) {
        uint64_t c = hist_count(h);
        n = hist_encode(h, enc, cap);
        fuzz_check(n > 0);
        fuzz_check(hist_decode(back, enc, n) == 0);
        fuzz_check(hist_count(back) == c && hist_min(back) == hist_min(h) &&
                   hist_max(back) == hist_max(h) && hist_sum(back) == hist_sum(h));
        n2 = hist_encode(back, enc2, cap);
        fuzz_check(n2 == n && memcmp(enc, enc2, n) == 0);
        if (c > 0) {
            static const double ps[] = {0, 1, 50, 90, 95, 99, 99.9, 100};
            for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
                uint64_t v = hist_percentile(h, ps[i]);
                fuzz_check(v >= hist_min(h) && v <= hist_max(h));
            }
            fuzz_check(hist_percentile(h, 0) == hist_min(h));
            fuzz_check(hist_percentile(h, 100) == hist_max(h));
        }
        if (hist_merge_encoded(dst, data, size) == 0)
            fuzz_check(hist_count(dst) == 4 + c);
        else
            fuzz_check(hist_count(dst) == 4);
    } else {
        fuzz_check(hist_count(h) == 0 && hist_max(h) == 0);
        fuzz_check(hist_merge_encoded(dst, data, size) != 0);
        fuzz_check(hist_count(dst) == 4 && hist_min(dst) == 7 && hist_max(dst) == 1234);
    }
    free(enc);
    free(enc2);
    hist_free(h);
    hist_free(back);
    hist_free(dst);
    return 0;
}
