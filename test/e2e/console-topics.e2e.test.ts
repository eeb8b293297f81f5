import type { Page } from 'playwright-core';
import { buildConsole, findChromium } from '../support/browser';
import { ConsoleBrowser, openView as view, screenshot as shot } from '../support/console-browser';
import { testEntitiesDir } from '../support/entities';
import { post, startTestService, type TestService } from '../support/service';

const browserFound = findChromium();
const XSS = '<img src=x onerror=alert(1)>';
const SEALED_IBAN = 'GB33BUKB20201555555555';
const EVENTS = 'acme.merchant_account.events';

if (!browserFound.ok) {
  console.warn(`SKIPPED console topics browser suite: ${browserFound.why}.`);
  describe.skip(`the console's topics and groups in a browser (skipped: ${browserFound.why})`, () => {
    test('needs chromium', () => undefined);
  });
} else {
  const executablePath = browserFound.executablePath;

  /**
   * The topics and groups view in Debian's chromium: a tenant's admin sees its topics, each group's lag and its
   * messages decoded (values as text, ciphertext left as is), by mouse and by keyboard; the service role operator
   * every topic but no messages; another tenant nothing.
   */
  describe("the console's topics and groups in a browser", () => {
    let t: TestService;
    let chromium: ConsoleBrowser;
    let page: Page;
    let ciphertext: string;

    beforeAll(async () => {
      buildConsole();
      t = await startTestService({ env: { DELTABROKER_ENTITIES_DIR: testEntitiesDir() } });
      chromium = await ConsoleBrowser.launch(executablePath, t.url);
      ({ page } = await chromium.signedIn(await t.token(['admin'])));
      // Two records: one whose name is markup, one whose sensitive field its producer encrypted (as required).
      const writer = { authorization: `Bearer ${await t.token(['writer'])}` };
      const sealed = await post(`${t.url}/dispatch`, { dispatch: { operation: 'encrypt', method: 'aes' }, payload: SEALED_IBAN }, writer);
      ciphertext = String(sealed.body.ciphertext);
      for (const payload of [
        { merchantId: 'm-xss', name: XSS, country: 'DE' },
        { merchantId: 'm-sealed', name: 'Sealed', iban: ciphertext },
      ]) {
        expect((await post(`${t.url}/`, { dispatch: { entity: 'merchant_account', operation: 'create' }, payload }, writer)).status).toBe(201);
      }
    }, 120_000);
    afterAll(async () => {
      await chromium?.close();
      await t?.stop();
    });
    afterEach(() => expect(chromium.incidents).toEqual([]));

    test("partitions, each group's lag per partition, messages decoded with their schema, values as text", async () => {
      await view(page, 'Topics and groups');
      const topics = page.getByRole('table', { name: 'topics' });
      await topics.getByRole('row', { name: /^acme\.merchant_account\.events \d+ 2 2 / }).waitFor();
      // The shared topics are no tenant's.
      expect(await topics.getByRole('cell', { name: 'deltas', exact: true }).count()).toBe(0);
      await page.getByRole('button', { name: `Describe ${EVENTS}` }).click();
      await page
        .getByRole('table', { name: `partitions of ${EVENTS}` })
        .getByRole('row', { name: /^\d+ 0 1$/ })
        .first()
        .waitFor();
      await page
        .getByRole('table', { name: `consumer groups of ${EVENTS}` })
        .getByRole('row', { name: /^deltabroker-projector-postgres \d+ \d+ \d+ \d+$/ })
        .first()
        .waitFor();

      await page.getByLabel('Latest messages').fill('10');
      await page.getByRole('button', { name: 'Read messages' }).click();
      const messages = page.getByRole('table', { name: `messages of ${EVENTS}` });
      await messages
        .getByRole('row', { name: /EntityEvent \(id \d+\)/ })
        .nth(1)
        .waitFor();
      await messages.getByText(XSS, { exact: false }).waitFor();
      const shown = (await messages.textContent()) ?? '';
      expect(shown).toContain(ciphertext);
      expect(shown).not.toContain(SEALED_IBAN);
      expect(await page.locator('main img').count()).toBe(0);
      await page.getByText(/^Writer schema EntityEvent \(id \d+\)$/).click();
      await page.getByText('"name": "EntityEvent"').waitFor();
      await shot(page, 'topics');
    });

    test('keyboard only: from a topic to its decoded messages, the focused control always outlined', async () => {
      await view(page, 'Overview');
      await view(page, 'Topics and groups');
      const focused = async () =>
        page.evaluate<string>(`(() => {
          const e = document.activeElement;
          return e ? [e.tagName, e.textContent, e.getAttribute('type'), getComputedStyle(e).outlineStyle].join('|') : '';
        })()`);
      const tabTo = async (wanted: RegExp) => {
        for (let i = 0; i < 40; i++) {
          await page.keyboard.press('Tab');
          const now = await focused();
          if (wanted.test(now)) return now;
        }
        throw new Error(`Tab never reached ${wanted}`);
      };
      await page.locator('body').focus();
      expect(await tabTo(new RegExp(`^BUTTON\\|Describe ${EVENTS.replace(/\./g, '\\.')}\\|`))).toMatch(/\|solid$/);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: `Topic ${EVENTS}` }).waitFor();
      // The number box of the messages form: typed into and submitted with Enter.
      expect(await tabTo(/^INPUT\|\|number\|/)).toMatch(/\|solid$/);
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.type('1');
      await page.keyboard.press('Enter');
      const messages = page.getByRole('table', { name: `messages of ${EVENTS}` });
      await messages.getByRole('row').nth(1).waitFor();
      expect(await messages.getByRole('row').count()).toBe(2);
    });

    test("the service role operator sees every topic and each group's lag, and no tenant's messages", async () => {
      const ops = await chromium.signedIn(await t.token(['operator'], { tenant: 'ops', sub: 'olga' }));
      await view(ops.page, 'Topics and groups');
      const topics = ops.page.getByRole('table', { name: 'topics' });
      await topics.getByRole('cell', { name: 'deltas', exact: true }).waitFor();
      await topics.getByRole('cell', { name: EVENTS, exact: true }).waitFor();
      await ops.page.getByRole('button', { name: 'Describe deltas' }).click();
      await ops.page
        .getByRole('table', { name: 'consumer groups of deltas' })
        .getByRole('row', { name: /^deltabroker-pipeline / })
        .first()
        .waitFor();
      expect(await ops.page.getByRole('button', { name: 'Read messages' }).count()).toBe(0);
      await ops.context.close();
    });

    test("another tenant's admin sees no topic, and a topic of acme's asked by name does not exist for it", async () => {
      const other = await chromium.signedIn(await t.token(['admin'], { tenant: 'globex', sub: 'gina' }));
      await other.page.getByText('gina · tenant globex · admin').waitFor();
      await view(other.page, 'Topics and groups');
      await other.page.getByRole('table', { name: 'topics' }).waitFor();
      await other.page.waitForLoadState('networkidle');
      expect(await other.page.getByRole('table', { name: 'topics' }).getByRole('row').count()).toBe(1);
      // From the page, with its own token.
      const asked = await other.page.evaluate(`Promise.all(['${EVENTS}', '${EVENTS}/messages'].map((p) =>
        fetch('/admin/topics/' + p, { headers: { authorization: 'Bearer ' + sessionStorage.getItem('deltabroker.token') } }).then((r) => r.status)))`);
      expect(asked).toEqual([404, 404]);
      const seen = (await other.page.locator('body').textContent()) ?? '';
      for (const text of ['m-xss', XSS, EVENTS]) expect(seen).not.toContain(text);
      await shot(other.page, 'other-tenant-topics');
      await other.context.close();
    });
  });
}
