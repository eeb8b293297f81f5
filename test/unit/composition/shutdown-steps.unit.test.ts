import { Writable } from 'node:stream';
import pino from 'pino';
import { closeWithin, ShutdownSteps } from '../../../src/composition/shutdown-steps';

function recordingLogger(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(new Writable({ write: (chunk: Buffer, _e, done) => void (lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>), done()) }));
  return { logger, lines };
}

describe('ShutdownSteps', () => {
  test('closes in the reverse of the order the parts were added, and goes on past a step that fails', async () => {
    const { logger, lines } = recordingLogger();
    const closed: string[] = [];
    const steps = new ShutdownSteps();
    steps.add('pool', async () => void closed.push('pool'));
    steps.add('consumer', () => Promise.reject(new Error('coordinator gone')));
    steps.add('http', async () => void closed.push('http'));
    await steps.closeAll(logger);
    expect(closed).toEqual(['http', 'pool']);
    expect(lines.map((l) => [l.msg, l.step])).toEqual([['shutdown step failed', 'consumer']]);
    expect(steps.pending).toBeUndefined();
  });

  test('closeWithin rejects past its deadline naming the step that never ends, after the steps before it closed', async () => {
    const { logger } = recordingLogger();
    const closed: string[] = [];
    const steps = new ShutdownSteps();
    steps.add('pool', async () => void closed.push('pool'));
    steps.add('table projector', () => new Promise<void>(() => undefined));
    steps.add('http', async () => void closed.push('http'));
    const started = Date.now();
    await expect(closeWithin(steps, logger, 200)).rejects.toThrow('shutdown did not finish within 200 ms: still closing table projector');
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(closed).toEqual(['http']);
  });

  test('closeWithin resolves once every step has closed within the deadline', async () => {
    const { logger } = recordingLogger();
    const steps = new ShutdownSteps();
    steps.add('slow', () => new Promise<void>((resolve) => setTimeout(resolve, 50)));
    await expect(closeWithin(steps, logger, 5_000)).resolves.toBeUndefined();
  });
});
