import { recordIdKey } from '../../../src/store/record-states/port';

test('distinct records have distinct keys, whatever characters their names hold', () => {
  const ids = [
    { tenant: 'a', entity: 'bc', key: 'd' },
    { tenant: 'ab', entity: 'c', key: 'd' },
    { tenant: 'a', entity: 'b', key: 'cd' },
    { tenant: '1:a', entity: 'b', key: 'c' },
    { tenant: '1', entity: 'a1:b', key: 'c' },
    { tenant: 'a\u0000b', entity: 'c', key: 'd' },
    { tenant: 'a', entity: 'b\u0000c', key: 'd' },
    { tenant: '', entity: '', key: '' },
  ];
  expect(new Set(ids.map(recordIdKey)).size).toBe(ids.length);
  expect(recordIdKey({ tenant: 'acme', entity: 'customer', key: 'c-1' })).toBe(recordIdKey({ tenant: 'acme', entity: 'customer', key: 'c-1' }));
});
