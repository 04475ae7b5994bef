#!/usr/bin/env python3
"""bighar.py OUT.har MEGABYTES: a recording of the shape that made har2lua slow.

Writes a HAR 1.2 file of about MEGABYTES MB: rounds of four entries, each
round's responses handing out values its later requests send back (a form's
hidden token, an order id in a Location header, a JSON id and token), so
that every round gives `quern har2lua` values to correlate. Deterministic:
the same size gives the same file. Used by the har2lua row of bench/run.sh.
"""
import hashlib
import json
import sys


def tok(prefix, k, salt):
    return prefix + hashlib.sha1(f"{salt}-{k}".encode()).hexdigest()[:16]


def at(second):
    return "2026-03-02T%02d:%02d:%02d.000Z" % (second // 3600 % 24, second // 60 % 60, second % 60)


def entry(t, method, url, status, mime, text, req=None, headers=(), rtype="document"):
    e = {
        "startedDateTime": at(t),
        "time": 40,
        "_resourceType": rtype,
        "request": {"method": method, "url": url, "httpVersion": "HTTP/1.1",
                    "headers": [{"name": "User-Agent", "value": "Mozilla/5.0"}], "queryString": []},
        "response": {"status": status, "headers": list(headers),
                     "content": {"mimeType": mime, "text": text, "size": len(text)}},
    }
    if req is not None:
        e["request"]["postData"] = req
    return e


def rnd(k):
    base = "https://shop.test"
    csrf, order, pay = tok("c", k, "csrf"), tok("o", k, "order"), tok("t", k, "pay")
    pad = "".join(f"<p>Item {k}-{i}: a line of the page that nothing sends back.</p>" for i in range(12))
    page = (f"<html><head><title>Basket {k}</title></head><body><form method=post>"
            f"<input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">{pad}</form></body></html>")
    t = 4 * k
    return [
        entry(t, "GET", f"{base}/basket/{k}", 200, "text/html", page),
        entry(t + 1, "POST", f"{base}/basket/{k}", 302, "text/html", "",
              req={"mimeType": "application/x-www-form-urlencoded", "text": f"csrf={csrf}&qty=2"},
              headers=[{"name": "Location", "value": f"/orders/{order}"}]),
        entry(t + 2, "GET", f"{base}/orders/{order}", 200, "application/json",
              json.dumps({"order": {"id": 100000 + k, "token": pay,
                                    "lines": [{"sku": f"sku{k}-{i}", "qty": i} for i in range(8)]}}),
              rtype="fetch"),
        entry(t + 3, "POST", f"{base}/api/pay", 200, "application/json", "{\"ok\": true}",
              req={"mimeType": "application/json",
                   "text": json.dumps({"order": 100000 + k, "token": pay})}, rtype="fetch"),
    ]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: bighar.py OUT.har MEGABYTES")
    want = float(sys.argv[2]) * 1e6
    with open(sys.argv[1], "w") as f:
        f.write('{"log": {"version": "1.2", "creator": {"name": "bighar.py", "version": "1"}, '
                '"entries": [\n')
        size, k = 0, 0
        while size < want:
            for e in rnd(k):
                s = ("," if size else "") + json.dumps(e) + "\n"
                f.write(s)
                size += len(s)
            k += 1
        f.write("]}}\n")


if __name__ == "__main__":
    main()
