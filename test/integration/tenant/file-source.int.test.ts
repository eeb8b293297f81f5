import { mkdirSync, mkdtempSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { DeltabrokerError } from '../../../src/errors';
import { FileEntityConfigSource } from '../../../src/tenant';
import { entityConfigSourceContract } from '../../unit/tenant/entity-config-source.contract';
import { CONFIG_DIR, minimalInput } from '../../unit/tenant/fixtures';

const tmpDirs: string[] = [];
function tmpDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-entities-'));
  tmpDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
});

function writeConfig(dir: string, tenant: string, entity: string, content: unknown): string {
  mkdirSync(path.join(dir, tenant), { recursive: true });
  const file = path.join(dir, tenant, `${entity}.yaml`);
  // Write then rename, as editors and config management do; the new inode marks the change.
  writeFileSync(`${file}.tmp`, typeof content === 'string' ? content : stringify(content));
  renameSync(`${file}.tmp`, file);
  return file;
}

entityConfigSourceContract('file', async (inputs) => {
  const dir = tmpDir();
  for (const input of inputs) writeConfig(dir, input.tenant as string, input.entity as string, input);
  writeFileSync(path.join(dir, 'README.md'), 'not a tenant folder');
  writeFileSync(path.join(dir, 'acme', 'notes.txt'), 'not a config file');
  return { source: new FileEntityConfigSource({ directory: dir }) };
});

describe('FileEntityConfigSource', () => {
  it('reads the shipped config/entities directory', async () => {
    const source = new FileEntityConfigSource({ directory: CONFIG_DIR });
    expect((await source.list()).configs.map((c) => `${c.tenant}/${c.entity}`)).toContain('acme/merchant_account');
  });

  it('picks up an edited file on the next get, and a removed one disappears', async () => {
    const dir = tmpDir();
    const source = new FileEntityConfigSource({ directory: dir });
    const file = writeConfig(dir, 't1', 'thing', minimalInput());
    expect((await source.get('t1', 'thing'))?.version).toBe(1);
    const again = await source.get('t1', 'thing');
    expect(again).toBe(await source.get('t1', 'thing')); // unchanged file: the cached object
    writeConfig(dir, 't1', 'thing', { ...minimalInput(), version: 2, fields: { id: 'string', label: 'string', extra: 'integer' } });
    const changed = await source.get('t1', 'thing');
    expect(changed?.version).toBe(2);
    expect(Object.keys(changed?.fields ?? {})).toEqual(['id', 'label', 'extra']);
    rmSync(file);
    expect(await source.get('t1', 'thing')).toBeUndefined();
  });

  it('refuses an invalid file alone with DB_ENTITY_CONFIG_INVALID naming the file, the field and the rule', async () => {
    const dir = tmpDir();
    writeConfig(dir, 't1', 'thing', { ...minimalInput(), fields: { id: 'string', n: { type: 'float' } } });
    writeConfig(dir, 't1', 'other', { ...minimalInput(), entity: 'other' });
    const source = new FileEntityConfigSource({ directory: dir });
    const err = await source.get('t1', 'thing').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeltabrokerError);
    expect((err as DeltabrokerError).code).toBe('DB_ENTITY_CONFIG_INVALID');
    expect((err as DeltabrokerError).retriable).toBe(false);
    expect((err as DeltabrokerError).message).toContain(`invalid entity configuration in ${path.join('t1', 'thing.yaml')}: fields.n.type: Invalid option`);
    expect((err as DeltabrokerError).details).toMatchObject({ source: 't1/thing.yaml', field: 'fields.n.type', rule: 'enum', stage: 'entity-config' });
    const listing = await source.list();
    expect(listing.configs.map((c) => c.entity)).toEqual(['other']);
    expect(listing.refused).toEqual([
      {
        tenant: 't1',
        entity: 'thing',
        source: 't1/thing.yaml',
        code: 'DB_ENTITY_CONFIG_INVALID',
        field: 'fields.n.type',
        rule: 'enum',
        message: (err as Error).message,
      },
    ]);
  });

  it('refuses, while running, a file that breaks; serves it again once fixed; never the old version meanwhile', async () => {
    const dir = tmpDir();
    const source = new FileEntityConfigSource({ directory: dir });
    writeConfig(dir, 't1', 'thing', minimalInput());
    expect((await source.get('t1', 'thing'))?.version).toBe(1);
    writeConfig(dir, 't1', 'thing', { ...minimalInput(), persistence: { topic: 'acme.thing.events' } });
    await expect(source.get('t1', 'thing')).rejects.toMatchObject({
      code: 'DB_ENTITY_CONFIG_INVALID',
      details: { source: 't1/thing.yaml', field: 'persistence.topic', rule: 'tenant-namespace' },
    });
    expect((await source.list()).refused.map((r) => r.rule)).toEqual(['tenant-namespace']);
    writeConfig(dir, 't1', 'thing', { ...minimalInput(), version: 2 });
    expect((await source.get('t1', 'thing'))?.version).toBe(2);
    expect((await source.list()).refused).toEqual([]);
  });

  it('refuses a file that is not YAML, and one whose tenant or entity disagrees with its path', async () => {
    const dir = tmpDir();
    writeConfig(dir, 't1', 'broken', 'tenant: t1\nentity: [unclosed\n');
    writeConfig(dir, 't1', 'other', minimalInput());
    const source = new FileEntityConfigSource({ directory: dir });
    await expect(source.get('t1', 'broken')).rejects.toMatchObject({
      code: 'DB_ENTITY_CONFIG_INVALID',
      message: expect.stringMatching(/is not valid YAML/),
      details: { source: 't1/broken.yaml', field: '(file)', rule: 'yaml' },
    });
    await expect(source.get('t1', 'other')).rejects.toMatchObject({
      message: expect.stringMatching(/declares t1\/thing; its path says t1\/other/),
      details: { field: 'entity', rule: 'path-mismatch' },
    });
  });

  it('refuses duplicate keys in a file', async () => {
    const dir = tmpDir();
    writeConfig(dir, 't1', 'thing', 'tenant: t1\nentity: thing\nentity: thing\nkey: id\nfields: {id: string}\n');
    await expect(new FileEntityConfigSource({ directory: dir }).get('t1', 'thing')).rejects.toThrow(/not valid YAML/);
  });

  it('lists nothing for a directory that does not exist', async () => {
    const source = new FileEntityConfigSource({ directory: path.join(tmpDir(), 'missing') });
    expect(await source.list()).toEqual({ configs: [], refused: [] });
    expect(await source.get('t1', 'thing')).toBeUndefined();
  });

  it('refuses alone, in list(), a YAML file whose folder or name is not a tenant or entity name', async () => {
    const dir = tmpDir();
    writeConfig(dir, 't1', 'Bad-Name', minimalInput());
    writeConfig(dir, 'T2', 'thing', { ...minimalInput(), tenant: 'T2' });
    writeConfig(dir, 't1', 'thing', minimalInput());
    const listing = await new FileEntityConfigSource({ directory: dir }).list();
    expect(listing.configs.map((c) => `${c.tenant}/${c.entity}`)).toEqual(['t1/thing']);
    expect(listing.refused).toEqual([
      expect.objectContaining({ tenant: 'T2', entity: 'thing', source: 'T2/thing.yaml', field: '(file name)', rule: 'file-name' }),
      expect.objectContaining({
        tenant: 't1',
        entity: 'Bad-Name',
        source: 't1/Bad-Name.yaml',
        code: 'DB_ENTITY_CONFIG_INVALID',
        rule: 'file-name',
        message: expect.stringMatching(/t1\/Bad-Name\.yaml: its folder and name must be a tenant and an entity name/),
      }),
    ]);
  });
});
