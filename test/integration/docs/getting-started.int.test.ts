/**
 * The pages a newcomer follows, run as written: every ```sh and ```bash block of docs/getting-started.md and of the
 * README, in page order, in one bash session (so `TOKEN`, `H`, `CT`… carry from block to block), against a fresh
 * service on the embedded defaults (its own data directory and embedded PostgreSQL server), one service per page.
 *
 * Conventions, stated on the page too:
 * - a block whose preceding line is `<!-- doc-test: skip (why) -->` is shown, not run (`npm start`, `npm test`);
 * - the pages use the default addresses (127.0.0.1:8080, :9092, :8081); the test's service listens on free ports,
 *   so those addresses are rewritten to its own before the script runs;
 * - `npx deltabroker …` runs the CLI from source (src/cli through tsx) instead of the built `bin/deltabroker.js`,
 *   and `npx tsx …` runs `node --import tsx …`: the same code, without a build or npx's start-up;
 * - every `curl` gets `--fail-with-body`, so an answer that is not 2xx fails the block like a failing command;
 * - a comment line that is a JSON object (`# {"payload":"hello",…}`) is an answer the page shows: some JSON object
 *   the page's commands printed has the same keys and values, where a string holding `…` stands for any string.
 * Skipped, saying why, where bash, curl or jq is missing (.ci/run installs them), and a page using the hsm
 * methods where SoftHSM2 is not installed (`npm test` installs it).
 */
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { parseMarkdown, readPage, ROOT } from '../../support/markdown';
import { startTestService, type TestService } from '../../support/service';
import { outputOf, type CliResult } from '../../support/cli-process';

const PAGES = ['docs/getting-started.md', 'README.md'];
const SKIP_MARKER = /^<!--\s*doc-test:\s*skip\b/;

const has = (command: string, args: string[]): boolean => spawnSync(command, args, { stdio: 'ignore' }).status === 0;
const missingTools = ['bash', 'curl', 'jq'].filter((tool) => !has(tool, ['--version']));
const haveSoftHsm = has('softhsm2-util', ['--version']);

/** The blocks of a page that run, each with the page line it starts on. */
function runnableBlocks(page: string): { line: number; text: string }[] {
  return parseMarkdown(readPage(page))
    .blocks.filter((block) => (block.language === 'sh' || block.language === 'bash') && !SKIP_MARKER.test(block.before.trim()))
    .map((block) => ({ line: block.line, text: block.text }));
}

/** One bash script: the shims, then each block after a line that says which block is running. */
function scriptOf(page: string, addresses: Record<string, string>): string {
  const rewrite = (text: string): string => Object.entries(addresses).reduce((out, [from, to]) => out.split(from).join(to), text);
  const cli = path.join(ROOT, 'test/support/cli-entry.ts');
  const prelude = [
    'set -Eeuo pipefail',
    'shopt -s inherit_errexit',
    'curl() { command curl --fail-with-body -S "$@"; }',
    `npx() { case "$1" in deltabroker) shift; node --require tsx/cjs '${cli}' "$@";; tsx) shift; node --import tsx "$@";; *) command npx "$@";; esac; }`,
    `trap 'echo "doc-test: ${page} block at line $BLOCK_LINE failed: $BASH_COMMAND" >&2' ERR`,
  ];
  const blocks = runnableBlocks(page).flatMap((block) => [`BLOCK_LINE=${block.line}`, `echo "--- ${page}:${block.line}" >&2`, rewrite(block.text)]);
  return [...prelude, ...blocks, ''].join('\n');
}

function runBash(script: string, env: Record<string, string>, timeoutMs: number): Promise<CliResult> {
  // Asynchronous: the service under test lives in this process, and a blocking call would starve it.
  // The caller's own DELTABROKER_* or DATABASE_URL would point the CLI elsewhere than the service under test.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(DELTABROKER_|DATABASE_URL$)/.test(name)));
  const child = spawn('bash', ['-s'], { cwd: ROOT, env: { ...inherited, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const output = outputOf(child, timeoutMs);
  child.stdin.end(script);
  return output;
}

const hostOf = (url: string): string => new URL(url).host;

/** The answers a page shows: comment lines of its runnable blocks that parse as a JSON object. */
function shownAnswers(page: string): unknown[] {
  return runnableBlocks(page).flatMap((block) =>
    block.text.split('\n').flatMap((line) => {
      const json = /^#\s*(\{.*\})\s*$/.exec(line)?.[1];
      if (json === undefined) return [];
      try {
        return [JSON.parse(json) as unknown];
      } catch {
        return [];
      }
    }),
  );
}

/** Every top-level JSON object in a command's output (curl prints answers back to back, headers between). */
function jsonObjectsIn(output: string): unknown[] {
  const objects: unknown[] = [];
  for (let start = output.indexOf('{'); start >= 0; start = output.indexOf('{', start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < output.length; i++) {
      const c = output[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{') depth++;
      else if (c === '}' && --depth === 0) {
        try {
          objects.push(JSON.parse(output.slice(start, i + 1)) as unknown);
          start = i;
        } catch {
          // not JSON after all: look for the next '{'
        }
        break;
      }
    }
  }
  return objects;
}

/** Does `actual` have the shape and values the page shows? A shown string with `…` in it stands for any string. */
function looksLike(shown: unknown, actual: unknown): boolean {
  if (typeof shown === 'string' && shown.includes('…')) return typeof actual === 'string';
  if (Array.isArray(shown)) return Array.isArray(actual) && actual.length === shown.length && shown.every((s, i) => looksLike(s, actual[i]));
  if (shown !== null && typeof shown === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    const keys = Object.keys(shown);
    return (
      keys.length === Object.keys(actual).length && keys.every((k) => looksLike((shown as Record<string, unknown>)[k], (actual as Record<string, unknown>)[k]))
    );
  }
  return shown === actual;
}

if (missingTools.length > 0) console.warn(`SKIPPED the pages' shell blocks: ${missingTools.join(', ')} not installed`);

describe.each(PAGES)("%s's shell blocks, run against a fresh service", (page) => {
  const usesHsm = readPage(page).includes('"method":"hsm');
  const skip = missingTools.length > 0 || (usesHsm && !haveSoftHsm);
  if (usesHsm && !haveSoftHsm) console.warn(`SKIPPED ${page}'s shell blocks: it uses the hsm methods and SoftHSM2 is not installed`);
  let t: TestService | undefined;

  beforeAll(async () => {
    if (skip) return;
    // The embedded defaults: no DATABASE_URL, so the service starts PostgreSQL in its own data directory, and
    // the CLI finds the server, broker and registry through it as it does beside `npm start`.
    t = await startTestService({ store: 'embedded', logLevel: 'warn' });
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
  });

  test('the page has blocks to run', () => {
    expect(runnableBlocks(page).length).toBeGreaterThan(0);
  });

  (skip ? test.skip : test)(
    'every block runs: each command succeeds, every curl is answered 2xx, every answer shown is printed',
    async () => {
      const service = t as TestService;
      const script = scriptOf(page, {
        '127.0.0.1:8080': hostOf(service.url),
        '127.0.0.1:9092': service.service.brokers[0] as string,
        '127.0.0.1:8081': hostOf(service.service.registryUrl),
      });
      const env: Record<string, string> = {
        DELTABROKER_DATA_DIR: service.config.dataDir,
        DELTABROKER_ENTITIES_DIR: service.config.entities.directory,
        // The run's SoftHSM2 token, which the service uses too (see test/support/service.ts).
        ...(process.env.TEST_SOFTHSM_DIR && {
          DELTABROKER_SOFTHSM_DIR: process.env.TEST_SOFTHSM_DIR,
          DELTABROKER_HSM_TOKEN_LABEL: process.env.TEST_HSM_TOKEN_LABEL ?? 'deltabroker-test',
          DELTABROKER_HSM_PIN: process.env.TEST_HSM_PIN ?? '',
        }),
        LOG_LEVEL: 'warn',
      };
      const run = await runBash(script, env, 240_000);
      expect({ code: run.code, stderr: run.stderr.slice(-4000), stdout: run.stdout.slice(-2000) }).toEqual({
        code: 0,
        stderr: expect.any(String),
        stdout: expect.any(String),
      });
      const printed = jsonObjectsIn(run.stdout);
      const notPrinted = shownAnswers(page).filter((shown) => !printed.some((actual) => looksLike(shown, actual)));
      expect({ notPrinted, printed }).toEqual({ notPrinted: [], printed: expect.anything() });
    },
    300_000,
  );
});
