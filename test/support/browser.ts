import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** Where the browser suites put their screenshots (git-ignored). */
export const TEST_OUTPUT = path.join(ROOT, 'test-output', 'console');

export type ChromiumAvailability = { ok: true; executablePath: string } | { ok: false; why: string };

/** Debian's chromium (`apt-get install -y chromium`), or the one CHROMIUM_PATH names; Playwright downloads none. */
export function findChromium(): ChromiumAvailability {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((c): c is string => !!c);
  const found = candidates.find((c) => existsSync(c));
  return found ? { ok: true, executablePath: found } : { ok: false, why: `no chromium at ${candidates.join(', ')} (apt-get install -y chromium)` };
}

/**
 * Builds the console into console/dist before a browser suite opens it: about a second with Vite, and never
 * stale after an edit to console/src, whether the run started from `npm test` or from jest directly.
 */
export function buildConsole(): void {
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '-c', 'console/vite.config.mjs', '--logLevel', 'warn'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  mkdirSync(TEST_OUTPUT, { recursive: true });
}
