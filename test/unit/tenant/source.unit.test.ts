import { DeltabrokerError } from '../../../src/errors';
import { InMemoryEntityConfigSource } from '../../../src/tenant';
import { entityConfigSourceContract } from './entity-config-source.contract';
import { minimalInput } from './fixtures';

entityConfigSourceContract('in-memory', async (inputs) => ({ source: new InMemoryEntityConfigSource(inputs) }));

describe('InMemoryEntityConfigSource', () => {
  it('validates on put and can remove', async () => {
    const source = new InMemoryEntityConfigSource();
    expect(() => source.put({ tenant: 't1' })).toThrow(DeltabrokerError);
    source.put(minimalInput());
    expect(await source.get('t1', 'thing')).toBeDefined();
    expect(source.remove('t1', 'thing')).toBe(true);
    expect(await source.get('t1', 'thing')).toBeUndefined();
  });
});
