import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ENTITIES_REFUSED_EXIT_CODE } from '../../../src/cli/entities';
import { loadConfig, type Config } from '../../../src/config';
import { FileEntityConfigSource, type EntityConfig } from '../../../src/tenant';
import { testEntitiesDir } from '../../support/entities';
import { runCli } from './run-cli';

/** `deltabroker entities list|check|show` over the entities folder (the embedded tenant API). */
describe('deltabroker entities', () => {
  let dir: string;
  let cli: Config;
  let configs: EntityConfig[];

  beforeAll(async () => {
    dir = testEntitiesDir();
    cli = loadConfig({ DELTABROKER_ENTITIES_DIR: dir });
    ({ configs } = await new FileEntityConfigSource({ directory: dir }).list());
    expect(configs.length).toBeGreaterThan(1);
  });

  test('list: one row per configured entity, filtered by --tenant', async () => {
    const lines = (await runCli(cli, ['entities', 'list'])).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^TENANT\s+ENTITY\s+VERSION\s+KEY\s+FIELDS\s+TOPIC\s+TABLE\s+INDEX\s+NOTIFICATIONS$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 2).join('/'))).toEqual(configs.map((c) => `${c.tenant}/${c.entity}`));
    expect(lines.find((l) => l.startsWith('acme ') && l.includes(' merchant_account '))).toMatch(
      /^acme\s+merchant_account\s+1\s+merchantId\s+6\s+acme\.merchant_account\.events\s+tenant_acme\.merchant_account\s+acme__merchant_account\s+global,local$/,
    );

    const acme = JSON.parse(await runCli(cli, ['entities', 'list', '--tenant', 'acme', '--json'])) as { entities: EntityConfig[]; refused: unknown[] };
    expect(acme).toEqual({ entities: configs.filter((c) => c.tenant === 'acme'), refused: [] });
    expect((await runCli(cli, ['entities', 'list', '--tenant', 'nobody'])).trimEnd().split('\n')).toHaveLength(1);
  });

  test('show: the validated configuration as YAML (default) or JSON', async () => {
    const expected = configs.find((c) => c.tenant === 'acme' && c.entity === 'merchant_account');
    expect(parseYaml(await runCli(cli, ['entities', 'show', 'acme', 'merchant_account']))).toEqual(expected);
    expect(JSON.parse(await runCli(cli, ['entities', 'show', 'acme', 'merchant_account', '--format', 'json']))).toEqual(expected);
    // Roles are resolved to explicit field lists: the reader never sees iban.
    expect(expected?.roles.reader?.read).not.toContain('iban');
  });

  test('show refuses an unknown entity and an unknown format', async () => {
    await expect(runCli(cli, ['entities', 'show', 'acme', 'nope'])).rejects.toMatchObject({ code: 'DB_NOT_FOUND' });
    await expect(runCli(cli, ['entities', 'show', 'acme', 'merchant_account', '--format', 'xml'])).rejects.toMatchObject({
      code: 'DB_VALIDATION',
      details: { field: 'format' },
    });
  });

  test('check: says how many are valid, or lists the refused ones and exits 2', async () => {
    expect(await runCli(cli, ['entities', 'check'])).toBe(`${configs.length} entity configurations valid\n`);
    expect(process.exitCode ?? 0).toBe(0);
    const broken = testEntitiesDir();
    mkdirSync(path.join(broken, 'evil'));
    writeFileSync(path.join(broken, 'evil', 'account.yaml'), 'tenant: evil\nentity: account\nkey: id\nfields: {id: string}\npersistence: {topic: acme.x}\n');
    try {
      const printed = await runCli(loadConfig({ DELTABROKER_ENTITIES_DIR: broken }), ['entities', 'check']);
      expect(printed).toMatch(
        /^TENANT\s+ENTITY\s+SOURCE\s+FIELD\s+RULE\s+REASON\nevil\s+account\s+evil\/account\.yaml\s+persistence\.topic\s+tenant-namespace\s+invalid entity/,
      );
      expect(process.exitCode).toBe(ENTITIES_REFUSED_EXIT_CODE);
    } finally {
      process.exitCode = 0;
    }
  });
});
