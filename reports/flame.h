/* flame — flame graphs of folded stacks, drawn as inline SVG for the HTML pages.
 *
 * What it is for: a profile given as folded stacks ("root;caller;leaf" and
 * its samples, or the microseconds it blocked) is drawn as Brendan Gregg's
 * flame graph: the stacks merged into one tree by their common prefixes
 * (a stack listed twice is summed), "all" at the bottom, each frame a
 * rectangle above its caller whose width is its total share, children in
 * name order, left to right. Each frame's <title> (the browser's own
 * tooltip: no script, the page opens offline) names it with its share and
 * its value; a frame wide enough shows its name, cut with "..". The
 * differential view draws the after profile's shape coloured by how much
 * each frame's share grew (red) or shrank (blue) since before.
 *
 * Bounds: the stacks are sorted once and each node of the tree keeps a
 * copy of its name, memory in proportion to the input's. What is written
 * is not: frames
 * narrower than min_px are summed into one grey FLAME_OTHER frame per
 * caller (omitted if that too is narrower), levels past max_depth are
 * folded into the last one, and at most FLAME_RECTS_MAX rectangles are
 * written: past it, min_px is raised to about the least that fits (doubled
 * until it does, each level holding at most width_px / min_px of them, then
 * sought between the last two), so the page stays small whatever the
 * profile, at the cost of about 30 walks of the drawn frames.
 *
 * Usage:
 *     flame_stack st[] = {{"main;run;seq_next", 3.4e6}, {"main;run;parse", 1.3e6}};
 *     flame_opts o = {.title = "Blocked time", .unit = "us"};
 *     flame_svg(out, st, 2, &o);                  // inside a page opened by html_head
 *     flame_diff_svg(out, before, nb, after, na, &o);
 *
 * Output goes through stdio: the caller checks ferror() once at the end. */
#ifndef QUERN_FLAME_H
#define QUERN_FLAME_H

#include <stddef.h>
#include <stdio.h>

/** Most rectangles one graph writes (each with its <title> and at most one
 *  label): about 300 bytes each. */
#define FLAME_RECTS_MAX 3000
/** The graph's width in px when flame_opts.width_px is 0. */
#define FLAME_WIDTH_DEFAULT 1000
/** The narrowest graph drawn, in px (a smaller width_px is raised to it). */
#define FLAME_WIDTH_MIN 100
/** The widest graph drawn, in px (a larger width_px is cut to it). */
#define FLAME_WIDTH_MAX 8000
/** Levels of frames drawn above "all" when flame_opts.max_depth is 0. */
#define FLAME_DEPTH_DEFAULT 64
/** The most levels drawn above "all" (a larger max_depth is cut to it). */
#define FLAME_DEPTH_MAX 256
/** Frames narrower than this, in px, are summed when flame_opts.min_px is 0. */
#define FLAME_MIN_PX 1.0
/** The name of the frame that sums a caller's frames too narrow to draw. */
#define FLAME_OTHER "[other]"

/** One folded stack. All borrowed. */
typedef struct flame_stack {
    const char *frames; /**< borrowed: "root;caller;leaf", frames separated by ';' (a frame name
                           never contains ';') */
    double value;       /**< samples, or microseconds blocked; > 0 (a stack with another value, or
                           NULL frames, is left out) */
} flame_stack;

/** How a graph is drawn; a zeroed struct (or NULL) draws with the defaults.
 *  All borrowed. */
typedef struct flame_opts {
    const char *title;  /**< borrowed: heading above (escaped); NULL: none */
    const char *unit;   /**< borrowed: how values are shown in titles: "us" as ms or s, "samples"
                           (or NULL) as a count, any other after the number (escaped) */
    unsigned width_px;  /**< 0: FLAME_WIDTH_DEFAULT; from FLAME_WIDTH_MIN to FLAME_WIDTH_MAX */
    unsigned max_depth; /**< levels above "all", deeper frames folded into the last; 0:
                           FLAME_DEPTH_DEFAULT; at most FLAME_DEPTH_MAX */
    double min_px;      /**< frames narrower are summed into FLAME_OTHER; 0 (or less):
                           FLAME_MIN_PX */
} flame_opts;

/** Writes a <figure class="flame"> holding the title and a flame graph of
 *  the n stacks st: root at the bottom, each frame a rectangle whose width
 *  is its total share, whose <title> names it with its share in % and its
 *  value in the unit, e.g. "seq_next: 71.2 % (3.4 s)" (a frame whose deeper
 *  frames were folded in says so after). Frames narrower than min_px are
 *  merged into FLAME_OTHER or omitted (their value stays in the parent's
 *  width). Height grows with depth, capped at max_depth. Without a stack
 *  of a value > 0 it writes "no samples" instead. */
void flame_svg(FILE *out, const flame_stack *st, size_t n, const flame_opts *o);

/** The differential view: the after profile's shape, each frame coloured by
 *  how much its total share grew (red, stronger the more) or shrank (blue)
 *  from before to after, the largest change at full strength (a change of
 *  less than 1 point of % never is); its title gives both shares ("find_item: 83.0 % (was
 *  12.5 %)"; a frame absent before was 0.0 %). Frames only in before are not
 *  drawn. Without an after stack it writes "no samples"; without a before
 *  one, a note says so above the graph. */
void flame_diff_svg(FILE *out, const flame_stack *before, size_t nb, const flame_stack *after,
                    size_t na, const flame_opts *o);

#endif
