import { eventIdOf } from '../../../src/log/topology';

describe('event ids', () => {
  test('follow from tenant and delta id, the same in every release (ids already on the log must be derived again)', () => {
    expect(eventIdOf('acme', 'd-1')).toBe('51841791-7533-504f-968b-50554abae41d');
    expect(eventIdOf('globex', 'd-1')).toBe('2692284d-8c55-51b3-a508-0c6ffc74170d');
    expect(eventIdOf('acme', 'd-1')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
