import { METRIC_NAMES, ServiceMetrics, type LagSnapshot } from '../../../src/observability';

const snapshot: LagSnapshot = {
  consumer: [{ group: 'g', topic: 't', partition: 0, high: '9', committed: '4', lag: 5 }],
  projection: [{ group: 'p', topic: 't', partition: 1, high: '9', committed: null, lag: 9 }],
};

describe('ServiceMetrics', () => {
  test('every metric name has the deltabroker_ prefix and a unit or _total suffix', () => {
    for (const name of Object.values(METRIC_NAMES)) expect(name).toMatch(/^deltabroker_[a-z_]+_(total|seconds|records|configs)$/);
    const exposed = new ServiceMetrics({ defaultMetrics: false }).registry.getMetricsAsArray().map((m) => m.name);
    expect(exposed.sort()).toEqual(Object.values(METRIC_NAMES).sort());
  });

  test('the refused-configurations gauge counts the refusals of each scrape, by code and rule, and forgets fixed ones', async () => {
    let refused = [
      { code: 'DB_ENTITY_CONFIG_INVALID', rule: 'tenant-namespace' },
      { code: 'DB_ENTITY_CONFIG_INVALID', rule: 'tenant-namespace' },
      { code: 'DB_ENTITY_CONFIG_INVALID', rule: 'file-name' },
    ];
    const metrics = new ServiceMetrics({ defaultMetrics: false, refusedEntityConfigs: () => refused });
    const series = async () => (await metrics.exposition()).split('\n').filter((l) => l.startsWith('deltabroker_refused_entity_configs{'));
    expect(await series()).toEqual([
      'deltabroker_refused_entity_configs{code="DB_ENTITY_CONFIG_INVALID",rule="tenant-namespace"} 2',
      'deltabroker_refused_entity_configs{code="DB_ENTITY_CONFIG_INVALID",rule="file-name"} 1',
    ]);
    refused = [];
    expect(await series()).toEqual([]);
  });

  test('one lag look-up serves both lag gauges, and scrapes at the same time', async () => {
    let lookups = 0;
    const metrics = new ServiceMetrics({ defaultMetrics: false, lag: async () => (lookups++, snapshot) });
    const [text] = await Promise.all([metrics.exposition(), metrics.exposition()]);
    expect(lookups).toBe(1);
    expect(text).toContain(`${METRIC_NAMES.consumerLag}{group="g",topic="t",partition="0"} 5`);
    expect(text).toContain(`${METRIC_NAMES.projectionLag}{projector="p",topic="t",partition="1"} 9`);
  });

  test('a lag source that fails or hangs leaves the gauges empty and counts a failure', async () => {
    const failures: unknown[] = [];
    let calls = 0;
    const metrics = new ServiceMetrics({
      defaultMetrics: false,
      lagTimeoutMs: 50,
      onLagFailure: (e) => failures.push(e),
      lag: () => (++calls === 1 ? Promise.reject(new Error('broker down')) : new Promise<LagSnapshot>(() => undefined)),
    });
    const first = await metrics.exposition();
    expect(first).not.toMatch(new RegExp(`^${METRIC_NAMES.consumerLag}\\{`, 'm'));
    expect(first).toContain(`${METRIC_NAMES.lagCollectionFailures} 1`);
    expect(await metrics.exposition()).toContain(`${METRIC_NAMES.lagCollectionFailures} 2`);
    expect(failures.map((e) => (e as Error).message)).toEqual(['broker down', 'no answer within 50 ms']);
  });
});
