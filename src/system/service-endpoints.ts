import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatIdentity, isRunning, ownIdentity, parseIdentity } from './process-liveness';

/**
 * Where a running service on a data directory can be reached (`<dataDir>/service.json`), so operator commands
 * talk to its embedded broker and registry instead of trying to open the files it holds.
 */
export interface ServiceEndpoints {
  http: string;
  brokers: string[];
  registryUrl: string;
}

const fileOf = (dataDir: string): string => path.join(dataDir, 'service.json');

export function publishEndpoints(dataDir: string, endpoints: ServiceEndpoints): () => void {
  const owner = formatIdentity(ownIdentity());
  writeFileSync(fileOf(dataDir), `${JSON.stringify({ owner, ...endpoints })}\n`, { mode: 0o644 });
  return () => {
    if (readOwner(dataDir) === owner) rmSync(fileOf(dataDir), { force: true });
  };
}

function readOwner(dataDir: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(fileOf(dataDir), 'utf8')) as { owner?: string }).owner;
  } catch {
    return undefined;
  }
}

/** The endpoints of the service that runs on `dataDir` now; undefined when none does (a stale file is ignored). */
export function readRunning(dataDir: string): ServiceEndpoints | undefined {
  let parsed: ServiceEndpoints & { owner: string };
  try {
    parsed = JSON.parse(readFileSync(fileOf(dataDir), 'utf8')) as ServiceEndpoints & { owner: string };
  } catch {
    return undefined;
  }
  if (!isRunning(parseIdentity(parsed.owner))) return undefined;
  return { http: parsed.http, brokers: parsed.brokers, registryUrl: parsed.registryUrl };
}
