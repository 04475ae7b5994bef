// Records a journey on the demo target in headless Chromium, as a tester
// would in the browser, into a HAR file: log in through the HTML form (its
// hidden token included), open the profile, call the JSON API, log out.
//   node har_record.js BASE_URL OUT.har      (CHROMIUM: the browser to drive)
const { chromium } = require('playwright-core');

(async () => {
  const [base, out] = process.argv.slice(2);
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM, args: ['--no-sandbox'] });
  const context = await browser.newContext({ recordHar: { path: out, content: 'embed' } });
  const page = await context.newPage();
  await page.goto(base + '/login');
  await page.fill('#user', 'alice');
  await page.fill('#password', 'secret');
  await Promise.all([page.waitForURL(base + '/login'), page.click('#submit')]);
  await page.waitForLoadState('load');
  await Promise.all([page.waitForURL(base + '/profile'), page.click('a[href="/profile"]')]);
  const api = await page.evaluate(() => fetch('/api/profile').then((r) => r.json()));
  if (api.name !== 'alice') throw new Error('the API answered ' + JSON.stringify(api));
  await Promise.all([page.waitForURL(base + '/logout'), page.click('a[href="/logout"]')]);
  await context.close(); // writes the HAR
  await browser.close();
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
