/* bundle — transitional: the bundle moved to proto/bundle.h (packing,
 * unpacking, path rules, limits) and agent/rundir.h (the run folder). Only
 * console/dist.c still includes this name; delete this file once it
 * includes proto/bundle.h. */
#ifndef QUERN_AGENT_BUNDLE_H
#define QUERN_AGENT_BUNDLE_H

#include "proto/bundle.h"

#endif
