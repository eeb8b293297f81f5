import { Writable } from 'node:stream';
import { redactingLogger } from '../../src/logger';
import { DeltabrokerError } from '../../src/errors';

/** The service's logger writing into memory: one parsed object per line. */
function capture() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: redactingLogger('info', sink) };
}

describe('the service logger redacts secrets', () => {
  test('secret fields of an object logged as a field are replaced; its other fields and the line are kept', () => {
    const { lines, logger } = capture();
    const config = { masterKey: 'mk-secret', pin: '1234', url: 'postgres://db' };
    const command = { payload: 'plain-secret', key: 'k-secret', keyMaterial: 'km', plaintext: 'pt', password: 'pw', authorization: 'Bearer t', method: 'aes' };
    logger.info({ config, command, tenant: 'acme', count: 3 }, 'started');
    expect(lines[0]).toMatchObject({
      msg: 'started',
      tenant: 'acme',
      count: 3,
      config: { masterKey: '[redacted]', pin: '[redacted]', url: 'postgres://db' },
      command: {
        payload: '[redacted]',
        key: '[redacted]',
        keyMaterial: '[redacted]',
        plaintext: '[redacted]',
        password: '[redacted]',
        authorization: '[redacted]',
        method: 'aes',
      },
    });
    // The caller's objects are not changed.
    expect(config.masterKey).toBe('mk-secret');
    expect(command.payload).toBe('plain-secret');
  });

  test("a request's Authorization header is replaced", () => {
    const { lines, logger } = capture();
    const req = { method: 'GET', url: '/whoami', headers: { authorization: 'Bearer secret-token', host: 'h' } };
    logger.info({ req }, 'incoming');
    expect(lines[0]?.req).toEqual({ method: 'GET', url: '/whoami', headers: { authorization: '[redacted]', host: 'h' } });
    expect(req.headers.authorization).toBe('Bearer secret-token');
  });

  test('an error keeps its type, message and stack while its secret fields are replaced', () => {
    const { lines, logger } = capture();
    const error = Object.assign(new DeltabrokerError('DB_VALIDATION', 'bad input', { field: 'payload' }), { payload: 'secret-in-error' });
    logger.error({ err: error }, 'failed');
    expect(lines[0]?.err).toMatchObject({ type: 'DeltabrokerError', message: 'bad input', payload: '[redacted]' });
    expect(String((lines[0]?.err as { stack: string }).stack)).toContain('bad input');
    expect(error.payload).toBe('secret-in-error');
  });

  test("a child's bindings, and its children's, are redacted too", () => {
    const { lines, logger } = capture();
    logger
      .child({ component: 'c', options: { password: 'pw' } })
      .child({ session: { key: 'k' } })
      .info('hello');
    expect(lines[0]).toMatchObject({ component: 'c', options: { password: '[redacted]' }, session: { key: '[redacted]' }, msg: 'hello' });
  });

  test('top-level fields are names and ids, not secrets: they are written as they are', () => {
    const { lines, logger } = capture();
    logger.info({ key: 'm-1', requestId: 'r-1' }, 'delta accepted');
    expect(lines[0]).toMatchObject({ key: 'm-1', requestId: 'r-1' });
  });
});
