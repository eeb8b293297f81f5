import type { Config } from '../config';
import { DeltabrokerError } from '../errors';
import { openDevIssuer } from '../composition';
import { isTenantName } from '../tenant/entity-config';

export async function mintToken(config: Config, options: { sub: string; tenant: string; roles: string; ttl: number }): Promise<string> {
  const issuer = await openDevIssuer(config);
  if (!issuer) {
    throw new DeltabrokerError('DB_FORBIDDEN', 'the development issuer is disabled (production mode); get tokens from your identity provider', {
      field: 'DELTABROKER_DEV_ISSUER',
      stage: 'cli',
    });
  }
  if (!isTenantName(options.tenant)) {
    throw new DeltabrokerError(
      'DB_VALIDATION',
      '--tenant must be a tenant name (lowercase letters and digits in words joined by single underscores, at most 30); the service would refuse the token',
      {
        field: 'tenant',
        rule: 'tenant-name',
        stage: 'cli',
      },
    );
  }
  const roles = options.roles
    .split(',')
    .map((r) => r.trim())
    .filter((r) => r !== '');
  return issuer.mint({ sub: options.sub, tenant: options.tenant, roles, ttlSeconds: options.ttl });
}
