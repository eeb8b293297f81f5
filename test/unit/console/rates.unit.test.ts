import { appendRates, KEPT_READINGS } from '../../../console/src/rates';

const reading = (at: string, accepted: number, refused = 0) => ({ at, entities: [{ entity: 'merchant_account', accepted, refused }] });

describe("the overview's rates, from two readings of the running counts", () => {
  test('per second over the time between the readings, stamped with the later one', () => {
    const series = appendRates({}, reading('2026-01-01T00:00:00.000Z', 10, 1), reading('2026-01-01T00:00:02.000Z', 14, 2));
    expect(series).toEqual({ merchant_account: [{ at: Date.parse('2026-01-01T00:00:02.000Z') / 1000, accepted: 2, refused: 0.5 }] });
  });

  test('a count that went down (a topic recreated) is no negative rate; an entity new in the later reading starts at 0', () => {
    const later = { at: '2026-01-01T00:00:02.000Z', entities: [...reading('', 3).entities, { entity: 'customer', accepted: 7, refused: 0 }] };
    const series = appendRates({}, reading('2026-01-01T00:00:00.000Z', 10), later);
    expect(series.merchant_account?.[0]).toMatchObject({ accepted: 0 });
    expect(series.customer?.[0]).toMatchObject({ accepted: 0, refused: 0 });
  });

  test('readings at the same instant add nothing; the oldest go past KEPT_READINGS', () => {
    const same = reading('2026-01-01T00:00:00.000Z', 1);
    const kept = { merchant_account: [] as { at: number; accepted: number; refused: number }[] };
    expect(appendRates(kept, same, same)).toBe(kept);
    let series = {};
    for (let i = 0; i < KEPT_READINGS + 5; i++) {
      series = appendRates(series, reading(new Date(i * 2000).toISOString(), i), reading(new Date((i + 1) * 2000).toISOString(), i + 1));
    }
    const points = (series as Record<string, { at: number }[]>).merchant_account ?? [];
    expect(points).toHaveLength(KEPT_READINGS);
    expect(points[0]?.at).toBe(((KEPT_READINGS + 5 - KEPT_READINGS + 1) * 2000) / 1000);
  });
});
