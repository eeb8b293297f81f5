/**
 * docs/observability/grafana-dashboard.json charts only series /metrics serves: every metric an expression names is
 * one of METRIC_NAMES (a histogram's `_bucket` included), so renaming a metric without the dashboard fails here.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { METRIC_NAMES } from '../../../src/observability';
import { ROOT } from '../../support/markdown';

interface Dashboard {
  panels: { title: string; targets: { expr: string }[] }[];
}

const dashboard = JSON.parse(readFileSync(path.join(ROOT, 'docs/observability/grafana-dashboard.json'), 'utf8')) as Dashboard;
const served = new Set<string>(Object.values(METRIC_NAMES).flatMap((name) => [name, `${name}_bucket`]));

describe('the Grafana dashboard', () => {
  test.each(dashboard.panels.map((p) => [p.title, p.targets.map((t) => t.expr)] as const))('%s: its expressions name served metrics', (_title, exprs) => {
    const named = exprs.flatMap((expr) => expr.match(/\bdeltabroker_[a-z_]+/g) ?? []);
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((name) => !served.has(name))).toEqual([]);
  });
});
