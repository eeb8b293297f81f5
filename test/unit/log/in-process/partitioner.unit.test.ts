/**
 * The in-process partitioner must put a key where kafkajs's DefaultPartitioner and the Java clients put it:
 * murmur2 on Kafka's own test vectors (UtilsTest.testMurmur2), then the partition compared with kafkajs's.
 */
import { randomBytes } from 'node:crypto';
import { Partitioners } from 'kafkajs';
import { murmur2, Partitioner, partitionForKey } from '../../../../src/log/in-process/partitioner';

test.each([
  ['21', -973932308],
  ['foobar', -790332482],
  ['a-little-bit-long-string', -985981536],
  ['a-little-bit-longer-string', -1486304829],
  ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
  ['abc', 479470107],
])('murmur2(%j) is %i, as in the Java client', (text, hash) => {
  expect(murmur2(Buffer.from(text, 'latin1'))).toBe(hash);
});

test('every key lands on the partition kafkajs DefaultPartitioner picks, for 1 to 12 partitions', () => {
  const kafkajs = Partitioners.DefaultPartitioner();
  const keys = [
    'acme/customer/c-1',
    '',
    'ünïcødé ✓ key',
    '日本語',
    'k'.repeat(2000),
    '€'.repeat(700),
    ...Array.from({ length: 500 }, (_, i) => randomBytes(1 + (i % 40)).toString('base64')),
  ];
  for (let partitions = 1; partitions <= 12; partitions++) {
    const partitionMetadata = Array.from({ length: partitions }, (_, p) => ({ partitionId: p, leader: 1, partitionErrorCode: 0, replicas: [1], isr: [1] }));
    for (const key of keys) {
      expect(partitionForKey(key, partitions)).toBe(kafkajs({ topic: 't', partitionMetadata, message: { key, value: null } }));
    }
  }
});

test('records without a key go round-robin over the partitions, per topic', () => {
  const p = new Partitioner();
  const first = Array.from({ length: 8 }, () => p.partition('t', null, 4));
  expect(new Set(first.slice(0, 4)).size).toBe(4);
  expect(first.slice(4)).toEqual(first.slice(0, 4));
  expect(p.partition('other', 'k', 4)).toBe(partitionForKey('k', 4));
});
