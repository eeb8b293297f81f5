import { tokenLabels } from '../../../../src/crypto/hsm/softhsm-token';

describe('tokenLabels', () => {
  it('lists initialised tokens from softhsm2-util --show-slots, skipping the free slot', () => {
    const output = [
      'Available slots:',
      'Slot 893908022',
      '    Token info:',
      '        Label:            deltabroker                     ',
      '        Serial number:    86c9fc483547f436',
      'Slot 1',
      '    Token info:',
      '        Label:                                            ',
      '        Serial number:                    ',
    ].join('\n');
    expect(tokenLabels(output)).toEqual(['deltabroker']);
  });
});
