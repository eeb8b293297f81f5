import { inTurns, medianBy, spread } from '../../../bench/support/repeated';

describe('baselines measured more than once (bench/support/repeated.ts)', () => {
  it('picks the sample with the median value, whole, so its other fields come from the same measurement', () => {
    const samples = [
      { rate: 18_000, p50: 0.05 },
      { rate: 7_200, p50: 0.2 },
      { rate: 10_300, p50: 0.11 },
    ];
    expect(medianBy(samples, (s) => s.rate)).toEqual({ rate: 10_300, p50: 0.11 });
    expect(medianBy(samples, (s) => s.p50)).toEqual({ rate: 10_300, p50: 0.11 });
  });

  it('takes the lower middle sample of an even count, and refuses none', () => {
    expect(medianBy([4, 1, 3, 2], (n) => n)).toBe(2);
    expect(medianBy([5], (n) => n)).toBe(5);
    expect(() => medianBy([], (n: number) => n)).toThrow('no samples');
  });

  it('gives the spread of the samples', () => {
    expect(spread([12.5, 9, 30], (n) => n.toFixed(1))).toBe('9.0–30.0 over 3');
  });

  it('alternates the two measurements, each as many times', async () => {
    const order: string[] = [];
    const result = await inTurns(
      3,
      async () => order.push('a'),
      async () => order.push('b'),
    );
    expect(order).toEqual(['a', 'b', 'a', 'b', 'a', 'b']);
    expect(result.a).toEqual([1, 3, 5]);
    expect(result.b).toEqual([2, 4, 6]);
  });
});
