import { RecordedOffsets } from '../../../streams/recorded-offsets';

const at = (partition: number, offset: number) => ({ topic: 't', partition, offset: String(offset) });

describe('recorded offsets: the state checkpoint is the contiguous high-water mark', () => {
  test('moves only over offsets whose state is recorded, whatever order they commit in', () => {
    const r = new RecordedOffsets();
    r.start('t', 0, 10n);
    r.recorded([at(0, 11), at(0, 13)]);
    expect(r.due()).toEqual([]);
    r.recorded([at(0, 10)]);
    expect(r.due()).toEqual([{ topic: 't', partition: 0, nextOffset: '12' }]);
    r.stored(r.due());
    expect(r.due()).toEqual([]);
    r.recorded([at(0, 12)]);
    expect(r.due()).toEqual([{ topic: 't', partition: 0, nextOffset: '14' }]);
  });

  test('a gap (an event recorded elsewhere, or never) holds it back; untracked partitions are ignored', () => {
    const r = new RecordedOffsets();
    r.start('t', 0, 0n);
    r.recorded([at(0, 1), at(0, 2), at(1, 0)]);
    expect(r.due()).toEqual([]);
    r.recorded([at(0, 0), at(0, 0)]);
    expect(r.due()).toEqual([{ topic: 't', partition: 0, nextOffset: '3' }]);
  });
});
