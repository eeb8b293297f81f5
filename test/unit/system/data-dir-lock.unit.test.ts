import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lockDataDir } from '../../../src/system/data-dir-lock';
import { isRunning, ownIdentity } from '../../../src/system/process-liveness';

describe('data-directory lock', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('a second owner is refused while the first holds it, and may lock once it is released', () => {
    const unlock = lockDataDir(dir, 'broker', 'the broker');
    expect(() => lockDataDir(dir, 'broker', 'the broker')).toThrow(expect.objectContaining({ code: 'DB_CONFLICT' }));
    unlock();
    lockDataDir(dir, 'broker', 'the broker')();
  });

  test('a lock naming a PID now used by another process (other start time) is taken over', () => {
    writeFileSync(path.join(dir, 'broker.lock'), `${process.pid} 1`);
    const unlock = lockDataDir(dir, 'broker', 'the broker');
    expect(readFileSync(path.join(dir, 'broker.lock'), 'utf8')).toBe(`${process.pid} ${ownIdentity().startTime}`);
    unlock();
  });

  test('a killed process that is not reaped yet (a zombie) counts as gone', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    const identity = { pid: child.pid ?? -1 };
    expect(isRunning(identity)).toBe(true);
    // Nobody reaps it while this synchronous block runs: between kill and the 'exit' event it is a zombie.
    process.kill(identity.pid, 'SIGKILL');
    const deadline = Date.now() + 2000;
    while (isRunning(identity) && Date.now() < deadline);
    expect(isRunning(identity)).toBe(false);
    writeFileSync(path.join(dir, 'broker.lock'), String(identity.pid));
    lockDataDir(dir, 'broker', 'the broker')();
    await new Promise((resolve) => child.once('exit', resolve));
  });
});
