#include "worker/lua/lxml.h"

#include <lauxlib.h>
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <stdio.h>

#include "common/err.h"

static void push_node(lua_State *L, xmlNodePtr n)
{
    xmlChar *s = xmlNodeGetContent(n);
    lua_pushstring(L, s ? (const char *)s : "");
    xmlFree(s);
}

int lxml_xpath(lua_State *L, const char *doc, size_t len, int html, const char *expr, int all,
               char *err, size_t errlen)
{
    int opts = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING;
    xmlDocPtr d = NULL;
    xmlXPathContextPtr ctx = NULL;
    xmlXPathObjectPtr obj = NULL;
    int ok = 0;

    if (len > (size_t)INT32_MAX) {
        err_set(err, errlen, "document too large");
        goto out;
    }
    if (html)
        d = htmlReadMemory(doc, (int)len, NULL, NULL,
                           HTML_PARSE_RECOVER | HTML_PARSE_NONET | HTML_PARSE_NOERROR |
                               HTML_PARSE_NOWARNING);
    else
        d = xmlReadMemory(doc, (int)len, NULL, NULL, opts);
    if (d == NULL) {
        err_set(err, errlen, "body is not well-formed %s", html ? "HTML" : "XML");
        goto out;
    }
    ctx = xmlXPathNewContext(d);
    if (ctx == NULL) {
        err_set(err, errlen, "out of memory");
        goto out;
    }
    obj = xmlXPathEvalExpression((const xmlChar *)expr, ctx);
    if (obj == NULL) {
        err_set(err, errlen, "bad XPath expression");
        goto out;
    }
    switch (obj->type) {
    case XPATH_NODESET: {
        int n = obj->nodesetval ? obj->nodesetval->nodeNr : 0;
        if (all) {
            lua_createtable(L, n, 0);
            for (int i = 0; i < n; i++) {
                push_node(L, obj->nodesetval->nodeTab[i]);
                lua_rawseti(L, -2, i + 1);
            }
        } else if (n > 0) {
            push_node(L, obj->nodesetval->nodeTab[0]);
        } else {
            lua_pushnil(L);
        }
        break;
    }
    case XPATH_BOOLEAN:
        lua_pushboolean(L, obj->boolval);
        break;
    case XPATH_NUMBER:
        lua_pushnumber(L, obj->floatval);
        break;
    case XPATH_STRING:
        lua_pushstring(L, (const char *)obj->stringval);
        break;
    default:
        lua_pushnil(L);
        break;
    }
    ok = 1;
out:
    xmlXPathFreeObject(obj);
    xmlXPathFreeContext(ctx);
    xmlFreeDoc(d);
    return ok;
}
