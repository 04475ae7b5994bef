// For tests/e2e/ctl_page.sh: a real headless Chromium opens the --web page of
// a run with --control, first without the token (no controls: the page stays
// read-only), then with /?token= (the controls show, the address loses its
// fragment), pauses the run with the page's button and resumes it, and
// prints what it saw as one JSON line, with the clicks' wall-clock times.
//   node ctl_page.js PORT TOKEN
"use strict";
const { chromium } = require("playwright-core");

const [port, token] = process.argv.slice(2);
const base = "http://127.0.0.1:" + port;
const out = {};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

(async () => {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM, args: ["--no-sandbox"] });
  try {
    const plain = await browser.newPage();
    await plain.goto(base + "/");
    await sleep(300);
    out.controls_without_token = await plain.isVisible("#controls");
    await plain.close();
    const page = await browser.newPage();
    await page.goto(base + "/?token=" + encodeURIComponent(token));
    await page.waitForSelector("#controls", { state: "visible", timeout: 5000 });
    out.controls_with_token = true;
    out.url_after = page.url();
    out.pause_at = Date.now() / 1000;
    await page.click("#ctl-pause");
    await page.waitForFunction(() => document.getElementById("ctl-msg").textContent === "paused",
                               null, { timeout: 5000 });
    out.paused_msg = await page.textContent("#ctl-msg");
    await page.waitForFunction(() => document.getElementById("badge").textContent === "paused",
                               null, { timeout: 3000 }).then(() => { out.badge_paused = true; },
                                                              () => { out.badge_paused = false; });
    await sleep(1000);
    out.resume_at = Date.now() / 1000;
    await page.click("#ctl-resume");
    await page.waitForFunction(() => document.getElementById("ctl-msg").textContent === "resumed",
                               null, { timeout: 5000 });
    await page.click("#ctl-resume"); /* again: the console refuses, the page says why */
    await page.waitForFunction(() => document.getElementById("ctl-msg").textContent !== "resumed",
                               null, { timeout: 5000 });
    out.resume_again_msg = await page.textContent("#ctl-msg");
  } catch (e) {
    out.error = String(e && e.message || e);
  }
  await browser.close();
  console.log(JSON.stringify(out));
})();
