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
    expect((await source.list()).map((c) => `${c.tenant}/${c.entity}`)).toContain('acme/merchant_account');
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

  it('refuses an invalid file with DB_INTERNAL naming the file and the field path', async () => {
    const dir = tmpDir();
    writeConfig(dir, 't1', 'thing', { ...minimalInput(), fields: { id: 'string', n: { type: 'float' } } });
    const source = new FileEntityConfigSource({ directory: dir });
    const err = await source.get('t1', 'thing').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeltabrokerError);
    expect((err as DeltabrokerError).code).toBe('DB_INTERNAL');
    expect((err as DeltabrokerError).message).toContain(`invalid entity configuration in ${path.join('t1', 'thing.yaml')}: fields.n.type: Invalid option`);
    expect((err as DeltabrokerError).details.field).toBe('fields.n.type');
    await expect(source.list()).rejects.toThrow(/fields\.n\.type/);
  });

  it('refuses a file that is not YAML, and one whose tenant or entity disagrees with its path', async () => {
    const dir = tmpDir();
    writeConfig(dir, 't1', 'broken', 'tenant: t1\nentity: [unclosed\n');
    writeConfig(dir, 't1', 'other', minimalInput());
    const source = new FileEntityConfigSource({ directory: dir });
    await expect(source.get('t1', 'broken')).rejects.toThrow(/is not valid YAML/);
    await expect(source.get('t1', 'other')).rejects.toThrow(/declares t1\/thing; its path says t1\/other/);
  });

  it('refuses duplicate keys in a file', async () => {
    const dir = tmpDir();
    writeConfig(dir, 't1', 'thing', 'tenant: t1\nentity: thing\nentity: thing\nkey: id\nfields: {id: string}\n');
    await expect(new FileEntityConfigSource({ directory: dir }).get('t1', 'thing')).rejects.toThrow(/not valid YAML/);
  });

  it('lists nothing for a directory that does not exist', async () => {
    const source = new FileEntityConfigSource({ directory: path.join(tmpDir(), 'missing') });
    expect(await source.list()).toEqual([]);
    expect(await source.get('t1', 'thing')).toBeUndefined();
  });

  it('refuses, in list(), a YAML file whose name is not an entity name', async () => {
    const dir = tmpDir();
    writeConfig(dir, 't1', 'Bad-Name', minimalInput());
    await expect(new FileEntityConfigSource({ directory: dir }).list()).rejects.toThrow(
      /t1\/Bad-Name\.yaml: tenant and entity names must be lowercase identifiers/,
    );
  });
});
