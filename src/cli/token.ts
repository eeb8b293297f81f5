import type { Config } from '../config';
import { DeltabrokerError } from '../errors';
import { openDevIssuer } from '../main';

export async function mintToken(config: Config, options: { sub: string; tenant: string; roles: string; ttl: number }): Promise<string> {
  const issuer = await openDevIssuer(config);
  if (!issuer) {
    throw new DeltabrokerError('DB_FORBIDDEN', 'the development issuer is disabled (production mode); get tokens from your identity provider', {
      field: 'DELTABROKER_DEV_ISSUER',
      stage: 'cli',
    });
  }
  const roles = options.roles.split(',').map((r) => r.trim()).filter((r) => r !== '');
  return issuer.mint({ sub: options.sub, tenant: options.tenant, roles, ttlSeconds: options.ttl });
}
