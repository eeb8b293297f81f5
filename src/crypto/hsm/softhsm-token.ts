import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DeltabrokerError } from '../../errors';

/**
 * A SoftHSM2 token kept in a directory of ours, for the embedded default and the tests.
 *
 * SoftHSM2 reads SOFTHSM2_CONF once, at C_Initialize, and lists the tokens that exist at that moment: so call
 * this before the first openPkcs11Hsm of the process (or after the last adapter has closed), and keep every
 * token a process uses under one directory.
 */
export interface SoftHsmTokenOptions {
  /** Holds softhsm2.conf and tokens/. Created if missing (mode 0700). */
  dir: string;
  label: string;
  pin: string;
  soPin: string;
  /** Overrides the library search (tests, unusual installs). */
  modulePath?: string;
}

export interface SoftHsmToken {
  modulePath: string;
  tokenLabel: string;
  pin: string;
  confPath: string;
}

const MULTIARCH: Partial<Record<NodeJS.Architecture, string>> = {
  x64: 'x86_64-linux-gnu',
  arm64: 'aarch64-linux-gnu',
  arm: 'arm-linux-gnueabihf',
  ia32: 'i386-linux-gnu',
  ppc64: 'powerpc64le-linux-gnu',
  s390x: 's390x-linux-gnu',
};

/** Where Debian/Ubuntu, Fedora and Homebrew put libsofthsm2. */
export function findSoftHsmModule(): string | undefined {
  const multiarch = MULTIARCH[process.arch];
  const candidates = [
    '/usr/lib/softhsm/libsofthsm2.so',
    ...(multiarch ? [`/usr/lib/${multiarch}/softhsm/libsofthsm2.so`] : []),
    '/usr/lib64/pkcs11/libsofthsm2.so',
    '/usr/lib64/softhsm/libsofthsm2.so',
    '/usr/local/lib/softhsm/libsofthsm2.so',
    '/opt/homebrew/lib/softhsm/libsofthsm2.so',
  ];
  return candidates.find((file) => existsSync(file));
}

const pending = new Map<string, Promise<SoftHsmToken | null>>();

/**
 * Makes sure the token exists and points SOFTHSM2_CONF at its directory. Returns null when SoftHSM2 is not
 * installed (no libsofthsm2, or no softhsm2-util to create the token with).
 */
export function ensureSoftHsmToken(options: SoftHsmTokenOptions): Promise<SoftHsmToken | null> {
  const key = `${path.resolve(options.dir)}\0${options.label}`;
  let run = pending.get(key);
  if (!run) {
    run = ensure(options).finally(() => pending.delete(key));
    pending.set(key, run);
  }
  return run;
}

async function ensure(options: SoftHsmTokenOptions): Promise<SoftHsmToken | null> {
  const modulePath = options.modulePath ?? findSoftHsmModule();
  if (!modulePath) return null;
  if (options.label.length === 0 || Buffer.byteLength(options.label) > 32) {
    throw new DeltabrokerError('DB_VALIDATION', 'a SoftHSM2 token label is 1 to 32 bytes', { field: 'hsm.tokenLabel' });
  }
  for (const [field, value] of [
    ['pin', options.pin],
    ['soPin', options.soPin],
  ] as const) {
    if (value.length < 4 || value.length > 255) {
      throw new DeltabrokerError('DB_VALIDATION', `the SoftHSM2 ${field} must be 4 to 255 characters`, { field: `hsm.${field}` });
    }
  }

  const dir = path.resolve(options.dir);
  const tokenDir = path.join(dir, 'tokens');
  const confPath = path.join(dir, 'softhsm2.conf');
  await mkdir(tokenDir, { recursive: true, mode: 0o700 });
  await chmod(tokenDir, 0o700);
  const conf = [
    '# Written by deltabroker: SoftHSM2 tokens of this data directory.',
    `directories.tokendir = ${tokenDir}`,
    'objectstore.backend = file',
    'log.level = ERROR',
    'slots.removable = false',
    '',
  ].join('\n');
  const existing = await readFile(confPath, 'utf8').catch(() => undefined);
  if (existing !== conf) await writeFile(confPath, conf, { mode: 0o600 });
  process.env.SOFTHSM2_CONF = confPath;

  const env = { ...process.env, SOFTHSM2_CONF: confPath };
  let slots: string;
  try {
    slots = await run(['--show-slots'], env);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null; // softhsm2-util not installed
    throw error;
  }
  if (!tokenLabels(slots).includes(options.label)) {
    // softhsm2-util takes PINs only as arguments (it reads a terminal, not stdin); they are never echoed back.
    await run(['--init-token', '--free', '--label', options.label, '--pin', options.pin, '--so-pin', options.soPin], env);
  }
  return { modulePath, tokenLabel: options.label, pin: options.pin, confPath };
}

/** Labels of the initialised tokens in `softhsm2-util --show-slots` output. */
export function tokenLabels(showSlots: string): string[] {
  const labels: string[] = [];
  for (const match of showSlots.matchAll(/^\s*Label:[ \t]*(.*)$/gm)) {
    const label = (match[1] ?? '').trimEnd();
    if (label) labels.push(label);
  }
  return labels;
}

/** Runs softhsm2-util; a failure names the action and stderr, never the arguments (they hold PINs). */
function run(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const action = args[0] ?? '';
  return new Promise((resolve, reject) => {
    execFile('softhsm2-util', args, { env, timeout: 30_000, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        // a fresh error: the spawn error carries the arguments (spawnargs)
        return reject(Object.assign(new Error('softhsm2-util is not installed'), { code: 'ENOENT' }));
      }
      const detail = `${stderr}${stdout}`.trim().split('\n').slice(-3).join(' ');
      reject(new DeltabrokerError('DB_HSM_UNAVAILABLE', `softhsm2-util ${action} failed: ${detail || `exit ${String(error.code)}`}`, { stage: 'hsm' }));
    });
  });
}
