/* lxml — XPath on response bodies, with libxml2 (XML and HTML parsers).
 *
 * Use: lxml_xpath() for r:xpath() and r:xpath_all(). Internal to worker/. */
#ifndef QUERN_LXML_H
#define QUERN_LXML_H

#include <lua.h>
#include <stddef.h>

/** Evaluates an XPath expression on an XML or HTML document; pushes the first
 *  result (all == 0) or a table of all results (all == 1); 1 ok, 0 with err. */
int lxml_xpath(lua_State *L, const char *doc, size_t len, int html, const char *expr, int all,
               char *err, size_t errlen);

#endif
