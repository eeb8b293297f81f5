import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { TEST_OUTPUT } from './browser';

/** A tab of the console: its browser context (closed with it) and page. */
export interface ConsoleTab {
  readonly context: BrowserContext;
  readonly page: Page;
}

/**
 * Debian's chromium driving the console of the service at `url`, 1280×800, noting anything a page ran that it
 * should not: alerts, CSP violations, requests to another origin.
 */
export class ConsoleBrowser {
  readonly incidents: string[] = [];

  private constructor(
    readonly browser: Browser,
    private readonly url: string,
  ) {}

  static async launch(executablePath: string, url: string): Promise<ConsoleBrowser> {
    return new ConsoleBrowser(await chromium.launch({ executablePath, args: ['--no-sandbox'] }), url);
  }

  watch(page: Page): void {
    page.on('dialog', (d) => void d.dismiss().then(() => this.incidents.push(`dialog: ${d.message()}`)));
    page.on('console', (m) => {
      if (/Content.Security.Policy/i.test(m.text())) this.incidents.push(`csp: ${m.text()}`);
    });
    page.on('request', (r) => {
      if (!r.url().startsWith(this.url)) this.incidents.push(`request: ${r.url()}`);
    });
  }

  /** A new watched tab in a context of its own (its own sessionStorage). */
  async tab(): Promise<ConsoleTab> {
    const context = await this.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    this.watch(page);
    return { context, page };
  }

  /** A tab signed in with `token` by pasting it, as an operator would. */
  async signedIn(token: string): Promise<ConsoleTab> {
    const tab = await this.tab();
    await tab.page.goto(`${this.url}/console/`);
    await tab.page.getByLabel('Bearer token').fill(token);
    await tab.page.getByRole('button', { name: 'Sign in', exact: true }).click();
    return tab;
  }

  close(): Promise<void> {
    return this.browser.close();
  }
}

/** Opens one of the console's views from its navigation. */
export const openView = (page: Page, name: string): Promise<void> => page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name }).click();

/** A screenshot at the viewport's size in test-output/console/. */
export const screenshot = async (page: Page, name: string): Promise<void> => void (await page.screenshot({ path: path.join(TEST_OUTPUT, `${name}.png`) }));
