/**
 * Browser suites (test/browser): a headless Chromium driven through playwright-core (which never
 * downloads a browser), pages of the run's Temporal Web UI, and waits that leave a screenshot and
 * the page text behind when they fail.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type FrameLocator,
  type Locator,
  type Page,
} from 'playwright-core';
import { TEST_ENV } from './env';
import { findBrowser } from './find-browser';

/** Set to `1` to skip the browser suites (jest counts them as skipped) where no browser can be had. */
export const SKIP_BROWSER_ENV = 'DURABLE_AGENTS_SKIP_BROWSER';

/**
 * How long a wait for something on a page lasts unless told otherwise: the Web UI long-polls, and
 * under `npm test` it shares the cores with the other tiers.
 */
const WAIT_MS = 45_000;

/**
 * Chromium's flags here. Chromium refuses to run as root inside its sandbox, and the browser only
 * opens local pages. Without the background-networking flags it reaches for update, sync and
 * field-trial servers at start, whose connections a closed network refuses.
 */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Containers often give /dev/shm only 64 MB.
  '--disable-dev-shm-usage',
];

/**
 * `describe` for a suite that drives a browser. Without a browser its tests fail with one line
 * saying how to get one; with `DURABLE_AGENTS_SKIP_BROWSER=1` they are skipped instead.
 */
export function describeBrowser(name: string, fn: () => void): void {
  if (process.env[SKIP_BROWSER_ENV] === '1') describe.skip(name, fn);
  else
    describe(name, () => {
      // A test waits on several pages, each for up to WAIT_MS.
      jest.setTimeout(4 * WAIT_MS);
      fn();
    });
}

/** Base URL of the Web UI of the run's Temporal server (see ./global-setup.ts). */
export function webUiUrl(): string {
  const url = process.env[TEST_ENV.uiUrl];
  if (!url) {
    throw oneLineError(
      "Browser tests need the Web UI of the tests' Temporal server: TEMPORAL_ADDRESS points at a server started elsewhere, " +
        'so set TEMPORAL_UI_URL to its Web UI, or unset TEMPORAL_ADDRESS to let the tests start their own.',
    );
  }
  return url;
}

export interface OpenOptions {
  /** `localStorage` entries set before the page's own scripts run (the Web UI keeps its table columns there). */
  localStorage?: Record<string, string>;
}

/** A headless browser for one suite: launch it in `beforeAll`, close it in `afterAll`. */
export interface TestBrowser {
  /** Opens `url` in a fresh context (its own storage and cookies). */
  open(url: string, options?: OpenOptions): Promise<BrowserPage>;
  close(): Promise<void>;
}

/** Finds Chromium or Chrome (see ./find-browser.ts) and launches it headless. */
export async function launchBrowser(): Promise<TestBrowser> {
  const found = findBrowser();
  if ('problem' in found) throw oneLineError(`Browser tests: ${found.problem}`);
  let browser: Browser;
  try {
    browser = await chromium.launch({ executablePath: found.path, headless: true, args: CHROMIUM_FLAGS });
  } catch (error) {
    throw oneLineError(`Browser tests: ${found.path} did not start: ${launchFailure(error)}`);
  }
  return {
    async open(url, options = {}) {
      const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
      if (options.localStorage) {
        const entries = JSON.stringify(options.localStorage);
        await context.addInitScript({
          content: `for (const [key, value] of Object.entries(${entries})) localStorage.setItem(key, value);`,
        });
      }
      const page = new BrowserPage(await context.newPage(), context);
      await page.goto(url);
      return page;
    },
    close: () => browser.close(),
  };
}

export interface WaitOptions {
  /** Look inside this iframe (a CSS selector) instead of the page: the Web UI renders Markdown in iframes. */
  frame?: string;
  timeoutMs?: number;
}

/**
 * One page. Every wait is for a visible element, never for the network to go idle: the Web UI
 * long-polls the history. A wait that fails saves a screenshot and the page text and names them.
 */
export class BrowserPage {
  constructor(
    readonly page: Page,
    private readonly context: BrowserContext,
  ) {}

  async goto(url: string): Promise<void> {
    await this.check(`opening ${url}`, async () => {
      await this.page.goto(url, { waitUntil: 'domcontentloaded' });
    });
  }

  /** Waits until `text` is visible (a string matches part of an element's text, ignoring case); returns that element. */
  text(text: string | RegExp, options: WaitOptions = {}): Promise<Locator> {
    return this.visible(`text ${String(text)}`, this.scope(options.frame).getByText(text), options);
  }

  /** Waits until an element matching `selector` and holding each of `hasText` is visible; returns it. */
  element(selector: string, options: WaitOptions & { hasText?: (string | RegExp)[] } = {}): Promise<Locator> {
    let locator = this.scope(options.frame).locator(selector);
    for (const text of options.hasText ?? []) locator = locator.filter({ hasText: text });
    const holding = options.hasText?.length ? ` holding ${options.hasText.map(String).join(' and ')}` : '';
    return this.visible(`${selector}${holding}`, locator, options);
  }

  /** Runs `fn`; if it throws, saves a screenshot and the page text and names both in the error. */
  async check<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      const saved = await this.saveEvidence().catch((reason) => `nothing saved: ${firstLine(reason)}`);
      throw new Error(`${what} on ${this.page.url()}: ${firstLine(error)} (${saved})`, { cause: error });
    }
  }

  /** The visible text of the page, then of each frame in it. */
  async visibleText(): Promise<string> {
    const texts: string[] = [];
    for (const frame of this.page.frames()) {
      const text = await frame
        .locator('body')
        .innerText({ timeout: 2000 })
        .catch(() => '');
      if (text.trim()) texts.push(frame === this.page.mainFrame() ? text : `--- frame ${frame.url()}\n${text}`);
    }
    return texts.join('\n');
  }

  close(): Promise<void> {
    return this.context.close();
  }

  private scope(frame: string | undefined): Page | FrameLocator {
    return frame ? this.page.frameLocator(frame) : this.page;
  }

  private visible(what: string, locator: Locator, options: WaitOptions): Promise<Locator> {
    const timeout = options.timeoutMs ?? WAIT_MS;
    const where = options.frame ? ` in frame ${options.frame}` : '';
    return this.check(`waiting ${timeout} ms for ${what}${where}`, async () => {
      const first = locator.filter({ visible: true }).first();
      await first.waitFor({ state: 'visible', timeout });
      return first;
    });
  }

  private async saveEvidence(): Promise<string> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'durable-agents-browser-'));
    const screenshot = path.join(dir, 'screenshot.png');
    const text = path.join(dir, 'page.txt');
    fs.writeFileSync(text, `${this.page.url()}\n\n${await this.visibleText()}\n`);
    const shot = await this.page
      .screenshot({ path: screenshot, fullPage: true, timeout: 5000 })
      .then(() => `screenshot ${screenshot}`)
      .catch((error) => `no screenshot (${firstLine(error)})`);
    return `${shot}, page text ${text}`;
  }
}

/** Why the browser did not start, from Playwright's launch log: its exit code and last line on stderr. */
function launchFailure(error: unknown): string {
  const log = error instanceof Error ? error.message.split('\nCall log:')[0] : String(error);
  const stderr = [...log.matchAll(/^\[pid=\d+\]\[err\] (.*)$/gm)].map((match) => match[1]).at(-1);
  const exit = /exitCode=(\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
  const reason = [exit && `exit code ${exit}`, stderr].filter(Boolean).join(': ');
  return reason || firstLine(error);
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0];
}

/** An error that jest reports as its message alone, without a stack of kit frames. */
function oneLineError(message: string): Error {
  const error = new Error(message);
  error.stack = `Error: ${message}`;
  return error;
}
