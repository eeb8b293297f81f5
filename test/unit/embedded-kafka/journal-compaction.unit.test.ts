import { JournalCompaction } from '../../../src/embedded/kafka/storage/checked-journal';

describe('when a journal is rewritten with its live state', () => {
  test('never at 1,000 lines or fewer, however many are superseded', () => {
    const compaction = new JournalCompaction();
    expect(compaction.due(1000, () => 1)).toBe(false);
  });

  test('past 1,000 lines, once there are more than four per live entry', () => {
    expect(new JournalCompaction().due(1001, () => 250)).toBe(true);
    expect(new JournalCompaction().due(1001, () => 251)).toBe(false);
    expect(new JournalCompaction().due(4001, () => 1000)).toBe(true);
  });

  test('the live entries are counted again only once the lines pass what the last count allowed', () => {
    const compaction = new JournalCompaction();
    let counts = 0;
    const live = (n: number) => () => {
      counts++;
      return n;
    };
    expect(compaction.due(1001, live(600))).toBe(false);
    expect(compaction.due(2400, live(1))).toBe(false);
    expect(counts).toBe(1);
    expect(compaction.due(2401, live(600))).toBe(true);
    expect(counts).toBe(2);
  });
});
