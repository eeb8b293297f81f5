import type { Command } from 'commander';
import type { Config } from '../config';
import { withKeyring as withComposedKeyring } from '../composition';
import type { KeyAliases } from '../crypto/key-aliases';
import type { Keyring } from '../crypto/keyring';
import { resolveMethod } from '../crypto/methods';
import { createToolLogger, type Logger } from '../logger';
import { positiveInt } from './arguments';

interface KeyOptions {
  tenant: string;
  key: string;
}

/** Runs `work` with the keyring on the configured store and HSM, then closes everything. */
function withKeyring<T>(config: Config, work: (keyring: Keyring, aliases: KeyAliases, logger: Logger) => Promise<T>): Promise<T> {
  const logger = createToolLogger();
  return withComposedKeyring(config, logger, (keyring, aliases) => work(keyring, aliases, logger));
}

const print = (value: unknown): void => void process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

export function registerKeysCommands(program: Command, config: () => Config): void {
  const keys = program.command('keys').description('the keyring: list, rotate, minimum decryption version, HSM key aliases (CRYPTO_CONFIG)');

  keys
    .command('list')
    .description('list keys and versions (never key material)')
    .option('--tenant <tenant>', 'only this tenant')
    .action(async (o: { tenant?: string }) => withKeyring(config(), async (keyring) => print(await keyring.list(o.tenant))));

  keys
    .command('rotate <method>')
    .description('add a new key version for a method family (aes or hsm); old versions still decrypt')
    .option('--tenant <tenant>', 'tenant', 'acme')
    .option('--key <name>', 'key name', 'default')
    .action(async (method: string, o: KeyOptions) =>
      withKeyring(config(), async (keyring) => {
        const version = await keyring.rotate(o.tenant, resolveMethod(method, 'method').family, o.key);
        print({ tenant: o.tenant, key: o.key, method, version });
      }),
    );

  keys
    .command('min-decryption-version <method> <version>')
    .description('refuse to decrypt ciphertexts below this key version')
    .option('--tenant <tenant>', 'tenant', 'acme')
    .option('--key <name>', 'key name', 'default')
    .action(async (method: string, version: string, o: KeyOptions) =>
      withKeyring(config(), async (keyring) => {
        await keyring.setMinDecryptionVersion(o.tenant, resolveMethod(method, 'method').family, o.key, positiveInt(version));
        print({ tenant: o.tenant, key: o.key, method, minDecryptionVersion: Number(version) });
      }),
    );

  keys
    .command('alias <alias>')
    .description('configure a CRYPTO_CONFIG key alias for keyAlias; creates the HSM key when --create is given')
    .option('--tenant <tenant>', 'tenant', 'acme')
    .option('--label <label>', 'label of the key in the HSM (default: deltabroker.alias.<tenant>.<alias>)')
    .option('--create', 'create the key in the HSM if it does not exist')
    .option('--disable', 'disable the alias')
    .action(async (alias: string, o: { tenant: string; label?: string; create?: boolean; disable?: boolean }) =>
      withKeyring(config(), async (_keyring, aliases) => {
        const keyLabel = o.label ?? `deltabroker.alias.${o.tenant}.${alias}`;
        await aliases.configure({ tenant: o.tenant, alias, family: 'hsm', keyLabel, enabled: !o.disable }, o.create === true);
        print({ tenant: o.tenant, alias, method: 'hsm', keyLabel, enabled: !o.disable });
      }),
    );

  keys
    .command('aliases')
    .description('list CRYPTO_CONFIG key aliases')
    .option('--tenant <tenant>', 'only this tenant')
    .action(async (o: { tenant?: string }) => withKeyring(config(), async (_k, aliases) => print(await aliases.list(o.tenant))));
}
