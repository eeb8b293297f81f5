import { advertisedVersions, negotiate, pickVersion } from '../../../src/embedded/kafka/api/negotiation';
import { apiFor } from '../../../src/embedded/kafka/api/registry';

describe('version negotiation', () => {
  test('advertises exactly the ranges kafkajs 2.2.4, librdkafka 2.0.2 and kafka-python 2.0.2 need (see shared KAFKA-NOTES)', () => {
    const table = Object.fromEntries(advertisedVersions().map((r) => [r.apiKey, [r.minVersion, r.maxVersion]]));
    expect(table).toEqual({
      0: [3, 7],
      1: [4, 11],
      2: [1, 3],
      3: [0, 6],
      8: [2, 7],
      9: [1, 5],
      10: [0, 2],
      11: [0, 5],
      12: [0, 3],
      13: [0, 3],
      14: [0, 3],
      15: [0, 4],
      16: [0, 4],
      17: [0, 1],
      18: [0, 3],
      19: [0, 4],
      20: [0, 3],
      22: [0, 1],
      24: [0, 1],
      25: [0, 1],
      26: [0, 1],
      28: [0, 2],
      65: [0, 0],
      66: [0, 0],
      32: [0, 2],
      33: [0, 1],
      36: [0, 1],
      37: [0, 1],
      42: [0, 1],
      44: [0, 0],
      47: [0, 0],
    });
  });

  test('every advertised key has a handler', () => {
    for (const r of advertisedVersions()) expect(apiFor(r.apiKey)?.key).toBe(r.apiKey);
  });

  test('negotiate and pick', () => {
    expect(negotiate(0, 7)).toBe('supported');
    expect(negotiate(0, 8)).toBe('unsupported-version');
    expect(negotiate(0, 2)).toBe('unsupported-version');
    expect(negotiate(23, 0)).toBe('unknown-api');
    expect(pickVersion(18, 0, 4)).toBe(3); // a client that knows ApiVersions v4 → 3
    expect(pickVersion(3, 0, 12)).toBe(6);
    expect(pickVersion(9, 0, 0)).toBeNull(); // an OffsetFetch v0-only client finds no common version
    expect(pickVersion(71, 0, 0)).toBeNull();
  });
});
