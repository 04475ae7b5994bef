/* tplot — a load over time as a small text chart; see tplot.h. */
#include "console/tplot.h"

#include <math.h>
#include <string.h>

#include "common/dur.h"

void tplot_draw(FILE *out, const double *y, size_t n, unsigned rows, int64_t total_us,
                const char *unit)
{
    double top = 0;
    char label[64], end[32];
    int w;

    for (size_t i = 0; i < n; i++)
        if (y[i] > top)
            top = y[i];
    snprintf(label, sizeof(label), "%.*f%s%s", top == floor(top) ? 0 : 1, top,
             unit[0] == '/' ? "" : " ", unit);
    w = (int)strlen(label);
    for (unsigned r = rows; r >= 1; r--) {
        fprintf(out, "  %*s |", w, r == rows ? label : "");
        for (size_t i = 0; i < n; i++) {
            /* the column's height in rows: any load above 0 shows one */
            double h = top > 0 ? ceil(y[i] / top * rows - 1e-9) : 0;
            fputc(h >= r ? '#' : ' ', out);
        }
        fputc('\n', out);
    }
    fprintf(out, "  %*s +", w, "0");
    for (size_t i = 0; i < n; i++)
        fputc('-', out);
    dur_format(total_us, end, sizeof(end));
    fprintf(out, "\n  %*s  0s%*s\n", w, "", (int)(n > 2 ? n - 2 : 1), end);
}
