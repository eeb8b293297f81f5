import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../../src/logger';
import { OffsetStore } from '../../../src/embedded/kafka/group/offset-store';
import { journalLine } from '../../../src/embedded/kafka/storage/checked-journal';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deltabroker-offsets-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const open = (): OffsetStore => OffsetStore.open(dir, 'always', 1000, silentLogger());
const entry = (topic: string, partition: number, offset: number) => ({ topic, partition, offset, leaderEpoch: -1, metadata: null, commitTimestamp: 0 });

describe('committed offsets store', () => {
  test('commits survive reopening; the latest commit wins', async () => {
    let s = open();
    await s.commit('g', [entry('t', 0, 5), entry('t', 1, 7)]);
    await s.commit('g', [entry('t', 0, 9)]);
    await s.commit('h', [entry('u', 0, 1)]);
    await s.close();
    s = open();
    expect(s.get('g', 't', 0)?.offset).toBe(9);
    expect(s.get('g', 't', 1)?.offset).toBe(7);
    expect([...s.all('g').get('t')!.keys()].sort()).toEqual([0, 1]);
    expect(s.get('h', 'u', 0)?.offset).toBe(1);
    expect(s.get('nope', 't', 0)).toBeUndefined();
    await s.close();
  });

  test('a commit that is not durable is written at once and fsynced with others within a second; a durable one waits for its fsync', async () => {
    const fsyncs = jest.spyOn(fs, 'fdatasync');
    try {
      let s = open();
      await s.commit('g', [entry('t', 0, 5)], false);
      await s.commit('g', [entry('t', 0, 6)], false);
      expect(fsyncs).not.toHaveBeenCalled();
      expect(s.get('g', 't', 0)?.offset).toBe(6);
      await new Promise((r) => setTimeout(r, 1200));
      expect(fsyncs).toHaveBeenCalledTimes(1);
      await s.commit('g', [entry('t', 0, 7)]);
      expect(fsyncs).toHaveBeenCalledTimes(2);
      await s.commit('g', [entry('t', 0, 8)], false);
      await s.close();
      s = open();
      expect(s.get('g', 't', 0)?.offset).toBe(8);
      await s.close();
    } finally {
      fsyncs.mockRestore();
    }
  });

  test('a torn last line is dropped and cut, earlier commits kept', async () => {
    let s = open();
    await s.commit('g', [entry('t', 0, 5)]);
    await s.close();
    const file = path.join(dir, 'offsets.journal');
    fs.appendFileSync(file, '0badc0de {"c":"g","ts":1,"e":[["t",0,99,-1,nu');
    s = open();
    expect(s.get('g', 't', 0)?.offset).toBe(5);
    await s.commit('g', [entry('t', 0, 6)]);
    await s.close();
    s = open();
    expect(s.get('g', 't', 0)?.offset).toBe(6);
    await s.close();
  });

  test('deleting a topic forgets its offsets in every group', async () => {
    let s = open();
    await s.commit('g', [entry('gone', 0, 5), entry('kept', 0, 1)]);
    await s.deleteTopic('gone');
    await s.close();
    s = open();
    expect(s.get('g', 'gone', 0)).toBeUndefined();
    expect(s.get('g', 'kept', 0)?.offset).toBe(1);
    await s.close();
  });

  test('a journal mostly made of superseded commits is compacted at open', async () => {
    // As a broker leaves it whose compaction an fsync under way kept putting off (or one that compacted only at open).
    const file = path.join(dir, 'offsets.journal');
    fs.writeFileSync(file, Buffer.concat(Array.from({ length: 1500 }, (_, i) => journalLine({ c: 'g', ts: i, e: [['t', 0, i, -1, null]] }))));
    const before = fs.statSync(file).size;
    const s = open();
    expect(fs.statSync(file).size).toBeLessThan(before / 100);
    expect(s.get('g', 't', 0)?.offset).toBe(1499);
    await s.close();
  });

  test('a running store compacts its journal once most of it is superseded, durably and without losing a commit', async () => {
    const file = path.join(dir, 'offsets.journal');
    let s = open();
    await s.commit('kept', [entry('t', 1, 7)]);
    let largest = 0;
    for (let i = 0; i < 6000; i++) {
      await s.commit('g', [entry('t', 0, i), entry('u', 0, i)], i % 100 !== 0);
      largest = Math.max(largest, fs.statSync(file).size);
    }
    // About 1,000 lines at most (some 70 bytes each) before a rewrite, where the 6,001 commits made 420 kB.
    expect(largest).toBeLessThan(100_000);
    expect(s.get('g', 'u', 0)?.offset).toBe(5999);
    await s.close();
    s = open();
    expect(s.get('g', 't', 0)?.offset).toBe(5999);
    expect(s.get('kept', 't', 1)?.offset).toBe(7);
    await s.close();
  });

  test('deleting a group or some of its offsets is durable; a group whose last offset goes is gone', async () => {
    let s = open();
    await s.commit('g', [entry('t', 0, 5), entry('t', 1, 6)]);
    await s.commit('h', [entry('t', 0, 1)]);
    await s.commit('k', [entry('t', 0, 2)]);
    await s.deleteGroup('g');
    await s.deleteOffsets('h', [{ topic: 't', partition: 0 }]);
    await s.deleteOffsets('k', [{ topic: 't', partition: 1 }]); // never committed: nothing changes
    expect(s.groupIds().sort()).toEqual(['k']);
    await s.close();
    s = open();
    expect(s.get('g', 't', 0)).toBeUndefined();
    expect(s.hasGroup('g')).toBe(false);
    expect(s.hasGroup('h')).toBe(false);
    expect(s.get('k', 't', 0)?.offset).toBe(2);
    // A group committing again after its deletion starts afresh.
    await s.commit('g', [entry('t', 1, 8)]);
    await s.close();
    s = open();
    expect([...s.all('g').get('t')!.entries()].map(([p, o]) => [p, o.offset])).toEqual([[1, 8]]);
    await s.close();
  });

  test('when a group became empty survives reopening; a group with members when the store closed became empty at the reopening', async () => {
    let s = open();
    await s.commit('left', [entry('t', 0, 5)]);
    s.groupHasMembers('left');
    s.groupEmptied('left', 1_000);
    await s.commit('running', [entry('t', 0, 7)]);
    s.groupHasMembers('running');
    s.groupHasMembers('no-offsets');
    expect(s.emptiedSince('running')).toBeUndefined();
    await s.close();
    const reopenedAt = Date.now();
    s = open();
    expect(s.emptiedSince('left')).toBe(1_000);
    expect(s.emptiedSince('running')).toBeGreaterThanOrEqual(reopenedAt);
    expect(s.emptiedSince('no-offsets')).toBeUndefined();
    const firstReopening = s.emptiedSince('running');
    await s.close();
    await new Promise((r) => setTimeout(r, 5));
    s = open();
    // Reopening again does not move it: the first reopening journaled it.
    expect(s.emptiedSince('running')).toBe(firstReopening);
    await s.close();
  });

  test('compaction keeps each offset’s commit time and when its group became empty', async () => {
    const now = jest.spyOn(Date, 'now');
    try {
      let s = open();
      now.mockReturnValue(5_000);
      await s.commit('g', [entry('t', 1, 1)]);
      for (let i = 0; i < 1500; i++) {
        now.mockReturnValue(10_000 + i);
        await s.commit('g', [entry('t', 0, i)]);
      }
      s.groupHasMembers('g');
      s.groupEmptied('g', 20_000);
      await s.close();
      // Compacted while it ran: fewer lines than the 1,503 written.
      expect(fs.readFileSync(path.join(dir, 'offsets.journal'), 'latin1').split('\n').length).toBeLessThan(1000);
      now.mockReturnValue(99_000);
      s = open();
      expect(s.get('g', 't', 0)).toMatchObject({ offset: 1499, commitTimestamp: 11_499 });
      expect(s.get('g', 't', 1)).toMatchObject({ offset: 1, commitTimestamp: 5_000 });
      expect(s.emptiedSince('g')).toBe(20_000);
      await s.close();
    } finally {
      now.mockRestore();
    }
  });

  test('deleting a group forgets when it became empty', async () => {
    let s = open();
    await s.commit('g', [entry('t', 0, 1)]);
    s.groupEmptied('g', 1_000);
    await s.deleteGroup('g');
    expect(s.emptiedSince('g')).toBeUndefined();
    await s.close();
    s = open();
    expect(s.emptiedSince('g')).toBeUndefined();
    await s.close();
  });
});
