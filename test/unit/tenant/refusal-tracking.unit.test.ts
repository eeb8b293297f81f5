import { Writable } from 'node:stream';
import pino from 'pino';
import { DeltabrokerError } from '../../../src/errors';
import {
  entityConfigInvalid,
  entityListing,
  parseEntityConfig,
  refusedEntry,
  RefusalTrackingSource,
  type EntityConfig,
  type EntityConfigSource,
  type EntityListing,
} from '../../../src/tenant';
import { minimalInput } from './fixtures';

/** A source whose answers the test sets: per entity a configuration or a refusal, and the listing. */
class ScriptedSource implements EntityConfigSource {
  answers = new Map<string, EntityConfig | DeltabrokerError | undefined>();
  listing: EntityListing = entityListing([]);
  async get(tenant: string, entity: string): Promise<EntityConfig | undefined> {
    const a = this.answers.get(`${tenant}/${entity}`);
    if (a instanceof DeltabrokerError) throw a;
    return a;
  }
  async list(): Promise<EntityListing> {
    return this.listing;
  }
}

const invalid = (rel: string, rule: string) =>
  entityConfigInvalid(`invalid entity configuration in ${rel}: ${rule}`, { source: rel, field: 'persistence.topic', rule });

describe('RefusalTrackingSource', () => {
  const lines: string[] = [];
  const logger = pino(new Writable({ write: (chunk: Buffer, _e, done) => void (lines.push(chunk.toString()), done()) }));
  const thing = parseEntityConfig({ ...minimalInput(), tenant: 'evil', entity: 'thing' });
  let inner: ScriptedSource;
  let source: RefusalTrackingSource;
  beforeEach(() => {
    lines.length = 0;
    inner = new ScriptedSource();
    source = new RefusalTrackingSource(inner, logger);
  });

  test('a listing sets the refusals; the next listing clears the fixed ones', async () => {
    const namespace = invalid('evil/merchant_account.yaml', 'tenant-namespace');
    const fileName = invalid('evil/Bad-Name.yaml', 'file-name');
    inner.listing = entityListing([thing], [refusedEntry('evil', 'merchant_account', namespace), refusedEntry('evil', 'Bad-Name', fileName)]);
    expect(await source.list()).toBe(inner.listing);
    expect(source.refused().map((r) => `${r.entity}:${r.rule}`)).toEqual(['Bad-Name:file-name', 'merchant_account:tenant-namespace']);
    inner.listing = entityListing([thing], [refusedEntry('evil', 'Bad-Name', fileName)]);
    await source.list();
    expect(source.refused().map((r) => r.entity)).toEqual(['Bad-Name']);
  });

  test('a get records a refusal that appears while running, and clears it once the entity serves again', async () => {
    inner.answers.set('evil/thing', thing);
    await source.get('evil', 'thing');
    expect(source.refused()).toEqual([]);
    const refusal = invalid('evil/thing.yaml', 'tenant-namespace');
    inner.answers.set('evil/thing', refusal);
    await expect(source.get('evil', 'thing')).rejects.toBe(refusal);
    await expect(source.get('evil', 'thing')).rejects.toBe(refusal);
    expect(source.refused()).toEqual([refusedEntry('evil', 'thing', refusal)]);
    expect(lines.filter((l) => l.includes('entity configuration refused'))).toHaveLength(1);
    inner.answers.set('evil/thing', thing);
    await source.get('evil', 'thing');
    expect(source.refused()).toEqual([]);
    expect(lines.some((l) => l.includes('entity configuration no longer refused'))).toBe(true);
  });

  test('a failure of the whole source is passed on and records nothing', async () => {
    inner.answers.set('evil/thing', new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', 'tenant API down', { stage: 'entity-config' }));
    await expect(source.get('evil', 'thing')).rejects.toMatchObject({ code: 'DB_DEPENDENCY_UNAVAILABLE' });
    expect(source.refused()).toEqual([]);
  });

  test('a get of a name that cannot be configured does not clear the refusal of that file name', async () => {
    inner.listing = entityListing([], [refusedEntry('evil', 'Bad-Name', invalid('evil/Bad-Name.yaml', 'file-name'))]);
    await source.list();
    expect(await source.get('evil', 'Bad-Name')).toBeUndefined();
    expect(source.refused()).toHaveLength(1);
  });
});
