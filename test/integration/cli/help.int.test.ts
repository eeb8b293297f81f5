import type { Command } from 'commander';
import { buildCli } from '../../../src/cli';
import { loadConfig } from '../../../src/config';
import { spawnCli } from './run-cli';

function* commandsOf(command: Command, path: string[] = []): Generator<{ path: string[]; command: Command }> {
  for (const sub of command.commands) {
    const here = [...path, sub.name()];
    yield { path: here, command: sub };
    yield* commandsOf(sub, here);
  }
}

const program = buildCli(() => loadConfig({}));
const every = [...commandsOf(program)];

/** Every command answers --help with its usage, description and options. */
describe('deltabroker --help', () => {
  test('the operator commands are all there', () => {
    expect(every.map((c) => c.path.join(' '))).toEqual(
      expect.arrayContaining([
        'serve',
        'token',
        'keys list',
        'keys rotate',
        'topics list',
        'topics describe',
        'topics alter',
        'topics groups list',
        'topics groups describe',
        'topics groups delete',
        'topics groups reset-offsets',
        'entities list',
        'entities show',
        'rejections list',
        'rejections show',
        'rejections retry',
      ]),
    );
  });

  test.each(every.map((c) => [c.path.join(' '), c.command] as const))('%s --help', (path, command) => {
    // Commander wraps long lines to the terminal width; compare with whitespace folded.
    const help = command.helpInformation().replace(/\s+/g, ' ');
    expect(help).toMatch(new RegExp(`^Usage: deltabroker ${path} `));
    expect(command.description().length).toBeGreaterThan(10);
    expect(help).toContain(command.description());
    for (const option of command.options) expect(help).toContain(option.flags);
    expect(help).toContain('-h, --help');
  });

  test('every topics and groups command offers --json', () => {
    for (const { path, command } of every.filter((c) => c.path[0] === 'topics' && c.command.commands.length === 0)) {
      expect([path.join(' '), command.options.some((o) => o.long === '--json')]).toEqual([path.join(' '), true]);
    }
  });

  test('as a process: --help exits 0 and prints the usage; nothing listening is a clear error and exit 1', async () => {
    const help = await spawnCli(['topics', 'describe', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: deltabroker topics describe [options] <topic>');
    expect(help.stdout).toContain('--group <group...>');

    const refused = await spawnCli(['topics', 'list'], { DELTABROKER_KAFKA_PORT: '1', DELTABROKER_KAFKA_BROKERS: '' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('DB_DEPENDENCY_UNAVAILABLE: no Kafka broker answers at 127.0.0.1:1: start the service (npm start)');

    const badValue = await spawnCli(['topics', 'alter', 'x', '--retention-ms', 'soon']);
    expect(badValue.code).toBe(1);
    expect(badValue.stderr).toContain("option '--retention-ms <ms>' argument 'soon' is invalid. must be a whole number ≥ 0, or -1 for no limit");
  }, 60_000);
});
