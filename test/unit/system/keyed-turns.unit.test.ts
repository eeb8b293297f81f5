import { KeyedTurns } from '../../../src/system/keyed-turns';

/** A piece of work that notes its start and end, and ends (or fails) when told to. */
function piece(events: string[], name: string) {
  let end: (fail?: boolean) => void = () => undefined;
  const work = (): Promise<string> => {
    events.push(`start ${name}`);
    return new Promise((resolve, reject) => {
      end = (fail) => {
        events.push(`end ${name}`);
        if (fail) reject(new Error(`${name} failed`));
        else resolve(name);
      };
    });
  };
  return { work, end: (fail?: boolean) => end(fail) };
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('work in turns per key', () => {
  test("a key's pieces run one after another, even after one fails; other keys run beside them", async () => {
    const events: string[] = [];
    const turns = new KeyedTurns();
    const [a1, a2, b1] = [piece(events, 'a1'), piece(events, 'a2'), piece(events, 'b1')];
    const first = turns.run('a', a1.work);
    const second = turns.run('a', a2.work);
    const other = turns.run('b', b1.work);
    await turn();
    expect(events).toEqual(['start a1', 'start b1']);
    a1.end(true);
    await expect(first).rejects.toThrow('a1 failed');
    await turn();
    expect(events).toEqual(['start a1', 'start b1', 'end a1', 'start a2']);
    a2.end();
    b1.end();
    await expect(second).resolves.toBe('a2');
    await expect(other).resolves.toBe('b1');
  });

  test('settled() waits for every piece given so far, failed ones included', async () => {
    const events: string[] = [];
    const turns = new KeyedTurns();
    const [a1, b1] = [piece(events, 'a1'), piece(events, 'b1')];
    turns.run('a', a1.work).catch(() => undefined);
    void turns.run('b', b1.work);
    let settled = false;
    void turns.settled().then(() => (settled = true));
    await turn();
    a1.end(true);
    await turn();
    expect(settled).toBe(false);
    b1.end();
    await turn();
    expect(settled).toBe(true);
  });
});
