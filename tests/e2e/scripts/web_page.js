// For tests/e2e/web.sh: a real headless Chromium opens the --web page of a
// running quern while hostile clients attack the same server from other
// loopback addresses, and prints what it saw as one JSON line.
//   node web_page.js PORT TOKEN ARTIFACT_DIR
// Hostile clients: a garbage request (127.0.0.2), 1,000 connections that
// send nothing (127.0.0.2), 8 slowloris clients sending a header byte a
// second (127.0.0.3). Meanwhile a poller (127.0.0.4) reads /state.json every
// 250 ms and notes when the console's merged second moves.
"use strict";
const net = require("net");
const http = require("http");
const fs = require("fs");
const path = require("path");
const { chromium } = require("playwright-core");

const [port, token, artifacts] = process.argv.slice(2);
const out = { requests_elsewhere: [], gaps_ms: [], idle_answered: 0 };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function garbage() {
  return new Promise((resolve) => {
    let got = "";
    const s = net.connect({ port, host: "127.0.0.1", localAddress: "127.0.0.2" }, () =>
      s.write("B\x01AD \xff\xff junk\r\n\r\n"));
    s.on("data", (d) => { got += d.toString("latin1"); });
    s.on("error", () => {});
    s.on("close", () => resolve(got.slice(0, 12)));
    setTimeout(() => s.destroy(), 3000);
  });
}

// Connections that send nothing, or a header byte a second: each must get
// nothing, and cost the run nothing.
function hold(n, addr, slow, ms) {
  const socks = [];
  for (let i = 0; i < n; i++) {
    const s = net.connect({ port, host: "127.0.0.1", localAddress: addr });
    s.on("error", () => {});
    s.on("data", () => { out.idle_answered++; });
    socks.push(s);
  }
  let timer = null;
  if (slow) {
    const req = "GET /state.json HTTP/1.1\r\nHost: x\r\nX-Slow: " + "a".repeat(100);
    let k = 0;
    timer = setInterval(() => { socks.forEach((s) => s.write(req[k % req.length])); k++; }, 1000);
  }
  return sleep(ms).then(() => { if (timer) clearInterval(timer); socks.forEach((s) => s.destroy()); });
}

// Reads elapsed_s every 250 ms for ms; notes the time between its changes.
async function poll(ms) {
  let last = null, lastAt = 0;
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const st = await new Promise((resolve) => {
      const req = http.get({ port, host: "127.0.0.1", localAddress: "127.0.0.4", path: "/state.json",
        headers: { Authorization: "Bearer " + token }, timeout: 2000 }, (res) => {
        let b = "";
        res.on("data", (d) => { b += d; });
        res.on("end", () => { try { resolve(JSON.parse(b)); } catch (e) { resolve(null); } });
      });
      req.on("error", () => resolve(null));
      req.on("timeout", () => { req.destroy(); resolve(null); });
    });
    if (st && st.elapsed_s !== last) {
      if (last !== null && !st.final) out.gaps_ms.push(Date.now() - lastAt);
      last = st.elapsed_s;
      lastAt = Date.now();
    }
    await sleep(250);
  }
}

async function total(page) {
  return page.$eval("#live-total [data-k=count]", (e) => Number(e.textContent));
}

(async () => {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu"] });
  try {
    const ctx = await browser.newContext({ viewport: { width: 1200, height: 1600 } });
    const page = await ctx.newPage();
    const origin = "http://127.0.0.1:" + port;
    page.on("request", (r) => { if (!r.url().startsWith(origin + "/")) out.requests_elsewhere.push(r.url()); });
    await page.goto(origin + "/?token=" + encodeURIComponent(token));
    out.url_after = page.url();
    const ck = (await ctx.cookies()).find((c) => c.name === "quern_web_" + port);
    out.cookie_httponly = !!(ck && ck.httpOnly);
    out.cookie_has_token = !!(ck && ck.value.includes(token));
    await page.waitForFunction(() => document.body.getAttribute("data-elapsed") > 0, null, { timeout: 20000 });
    out.garbage = await garbage();
    // The attack and the watch, while the page goes on updating.
    const attack = Promise.all([hold(1000, "127.0.0.2", false, 4000), hold(8, "127.0.0.3", true, 4000),
      poll(4000)]);
    const t1 = await total(page);
    const e1 = await page.evaluate(() => document.body.getAttribute("data-elapsed"));
    await sleep(2200);
    const t2 = await total(page);
    const e2 = await page.evaluate(() => document.body.getAttribute("data-elapsed"));
    out.live = { t1, t2, sec1: Number(e1), sec2: Number(e2) };
    out.charts = await page.$$eval("#charts svg", (l) => l.length);
    out.agent_state = await page.$eval("#ag-rows [data-k=state]", (e) => e.textContent);
    out.thresholds_live = await page.$$eval("#th-rows tr", (l) => l.length);
    await page.screenshot({ path: path.join(artifacts, "web-live.png"), fullPage: true });
    await attack;
    await page.waitForFunction(() => document.body.getAttribute("data-final") === "1", null, { timeout: 30000 });
    out.final_total = await total(page);
    out.summary = await page.$$eval("#sum-rows tr", (rows) => rows.map((r) => {
      const o = { name: r.getAttribute("data-step") };
      r.querySelectorAll("[data-k]").forEach((td) => { o[td.getAttribute("data-k")] = td.textContent; });
      return o;
    }));
    out.verdict = await page.$eval("#v-reason", (e) => e.textContent);
    out.links = await page.$$eval("a[href]", (l) => l.length);
    await page.screenshot({ path: path.join(artifacts, "web-final.png"), fullPage: true });
  } catch (e) {
    out.error = String(e && e.message || e);
  }
  await browser.close();
  fs.writeSync(1, JSON.stringify(out) + "\n");
})();
