import os from 'node:os';
import { reliabilityProfile } from '../support/reliability/profile';
import { Prng } from '../support/reliability/prng';
import { ServiceUnderTest } from '../support/reliability/service-harness';
import { median, percentile, WriteLoad } from '../support/reliability/write-load';

const profile = reliabilityProfile();
const PEAK_CONCURRENCY = 32;

/**
 * Measures the peak HTTP write rate (closed loop, 32 writers), then writes at half of it through a warm-up
 * (RELIABILITY_LOAD_WARMUP_SECONDS) and the measured duration (RELIABILITY_LOAD_SECONDS): no errors, and the
 * service's RSS grows by less than 10% over the measured part.
 */
describe(`load: half the peak write rate for ${profile.loadWarmUpSeconds} s of warm-up and ${profile.loadSeconds} s measured`, () => {
  let sut: ServiceUnderTest;

  beforeAll(async () => {
    sut = await ServiceUnderTest.create();
    await sut.start();
  });
  afterAll(() => sut?.dispose());

  test(
    'no errors, flat memory',
    async () => {
      const load = new WriteLoad(sut.url, await sut.token(['admin']), new Prng(profile.seed + 9), 'load');
      await load.peak(4, 3); // warms the JIT, the connections and the token cache before measuring
      const peak = await load.peak(PEAK_CONCURRENCY, profile.peakSeconds);
      expect(peak.results.filter((r) => !r.ok).slice(0, 5)).toEqual([]);
      const rate = Math.max(1, Math.floor(peak.rate / 2));

      const samples: { at: number; rss: number }[] = [];
      const started = Date.now();
      const total = profile.loadWarmUpSeconds + profile.loadSeconds;
      const { results, late } = await load.steady(rate, total, 1_000, () => samples.push({ at: (Date.now() - started) / 1000, rss: sut.rssBytes() }));
      const failures = results.filter((r) => !r.ok);

      // The heap grows until V8's first major collections (about a minute in at these rates), so the warm-up runs at
      // the same rate first. Memory is compared as medians of the 10 s after warm-up and of the last 10 s.
      const warmUp = profile.loadWarmUpSeconds;
      const after = samples.filter((s) => s.at >= warmUp && s.at < warmUp + 10).map((s) => s.rss);
      const last = samples.filter((s) => s.at >= total - 10).map((s) => s.rss);
      const growth = median(last) / median(after) - 1;
      const latencies = results.map((r) => r.ms);
      console.log(
        JSON.stringify({
          load: {
            warmUpSeconds: warmUp,
            measuredSeconds: profile.loadSeconds,
            loadAverage: os.loadavg().map((l) => Math.round(l * 10) / 10),
            peakRate: Math.round(peak.rate * 10) / 10,
            peakP99Ms: percentile(
              peak.results.map((r) => r.ms),
              99,
            ),
            rate,
            writes: results.length,
            achievedRate: Math.round((results.length / total) * 10) / 10,
            p50Ms: percentile(latencies, 50),
            p99Ms: percentile(latencies, 99),
            rssAfterWarmUpMiB: Math.round(median(after) / 2 ** 20),
            rssEndMiB: Math.round(median(last) / 2 ** 20),
            rssMaxMiB: Math.round(Math.max(...samples.map((s) => s.rss)) / 2 ** 20),
            growthPercent: Math.round(growth * 1000) / 10,
            failures: failures.length,
            failureStatuses: [...new Set(failures.map((f) => f.status))],
            failuresAtSecond: [...new Set(failures.map((f) => Math.round(f.at)))].slice(0, 20),
            late,
            rssEvery10sMiB: samples.filter((_, i) => i % 10 === 0).map((s) => Math.round(s.rss / 2 ** 20)),
          },
        }),
      );
      expect(failures.slice(0, 5)).toEqual([]);
      expect(late).toBe(0);
      expect(growth).toBeLessThan(0.1);
    },
    (profile.loadWarmUpSeconds + profile.loadSeconds + profile.peakSeconds + 300) * 1000,
  );
});
