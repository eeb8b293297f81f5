import { execFile, execFileSync } from 'node:child_process';
import path from 'node:path';

/** Debian's Python, where python3-kafka installs kafka-python (and the system librdkafka is reachable through ctypes). */
export const PYTHON = '/usr/bin/python3';

/** Null when `/usr/bin/python3 -c <probe>` succeeds, else why it does not (synchronous: suites pick describe or describe.skip). */
export function pythonCannot(probe: string): string | null {
  try {
    execFileSync(PYTHON, ['-c', probe], { timeout: 20_000, stdio: ['ignore', 'ignore', 'pipe'] });
    return null;
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim().split('\n').at(-1);
    return stderr || (err as Error).message;
  }
}

/** Runs a script of this folder and parses the one JSON object it prints. */
export function runPythonScript<T>(script: string, args: string[], timeoutMs = 90_000): Promise<T> {
  return new Promise((resolve, reject) =>
    execFile(PYTHON, [path.join(__dirname, script), ...args], { timeout: timeoutMs, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${script} failed: ${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as T);
    }),
  );
}
