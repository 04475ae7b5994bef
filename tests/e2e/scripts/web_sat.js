// For tests/e2e/web_sat.sh: a real headless Chromium opens the --web page of
// a running quern whose worker the test stops for a while, and prints what
// the page showed as one JSON line: the injector's line once it counts a
// saturated second and at the end, and the shaded bands of each chart.
//   node web_sat.js PORT ARTIFACT_DIR
"use strict";
const path = require("path");
const { chromium } = require("playwright-core");

const [port, artifacts] = process.argv.slice(2);
const out = { line_sat: null, line_final: null, bands: {}, titles: [] };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

(async () => {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu"] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
    await page.goto("http://127.0.0.1:" + port + "/");
    const end = Date.now() + 40000;
    let shot = false;
    while (Date.now() < end) {
      const st = await page.evaluate(() => ({
        final: document.body.getAttribute("data-final"),
        sat: document.getElementById("inj").getAttribute("data-saturated"),
        sats: Number(document.getElementById("inj").getAttribute("data-saturated-s") || 0),
        text: document.getElementById("inj").textContent,
        cls: document.getElementById("inj").className }));
      if (st.sats > 0 && out.line_sat === null) out.line_sat = st;
      if (st.sats > 0 && !shot) {
        await sleep(1200); // the next second's charts, the band drawn
        await page.screenshot({ path: path.join(artifacts, "web-saturated.png"), fullPage: true });
        shot = true;
      }
      if (st.final === "1") { out.line_final = st; break; }
      await sleep(150);
    }
    for (const k of ["throughput", "latency", "errors", "vus"]) {
      out.bands[k] = await page.evaluate((id) => Array.from(
        document.querySelectorAll("#ch-" + id + " rect.sat")).map((r) =>
        r.getAttribute("data-from") + "-" + r.getAttribute("data-to")).join(" "), k);
    }
    out.titles = await page.evaluate(() => Array.from(document.querySelectorAll("#ch-latency rect.sat title"))
      .map((t) => t.textContent));
  } catch (e) {
    out.error = String(e);
  }
  await browser.close();
  console.log(JSON.stringify(out));
})();
