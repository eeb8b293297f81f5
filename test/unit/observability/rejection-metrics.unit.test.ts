import { rejectionLabels } from '../../../src/observability';

describe('rejection counter labels', () => {
  test('known stages and codes are kept; anything a foreign producer wrote shares one label', () => {
    expect(rejectionLabels({ stage: 'permission', reason: 'DB_FORBIDDEN' })).toEqual({ stage: 'permission', code: 'DB_FORBIDDEN' });
    expect(rejectionLabels({ stage: 'decode', reason: 'DECODE_MAGIC_BYTE' })).toEqual({ stage: 'decode', code: 'DECODE_MAGIC_BYTE' });
    expect(rejectionLabels({ stage: `stage-${Math.random()}`, reason: 'NOT_A_CODE' })).toEqual({ stage: 'other', code: 'other' });
  });
});
