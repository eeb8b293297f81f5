import type { TokenVerifier } from '../../../src/auth/principal';
import { DeltabrokerError } from '../../../src/errors';
import { buildHttpApp } from '../../../src/http/app';
import { registerMetricsRoute } from '../../../src/http/routes/metrics';
import { silentLogger } from '../../../src/logger';
import { instrumentHttp, METRIC_NAMES, ServiceMetrics } from '../../../src/observability';

/** Tokens are `roles.<dot-separated roles>`; anything else is refused as a forged token would be. */
const verifier: TokenVerifier = {
  verify: async (token) => {
    if (!token.startsWith('roles.')) throw new DeltabrokerError('DB_UNAUTHENTICATED', 'bad token', { stage: 'auth' });
    return { user: 'u', tenant: 't', roles: token.slice('roles.'.length).split('.') };
  },
};

/** The HTTP app with only the metrics route, on an ephemeral port; `get` fetches a path with optional headers. */
async function app(options: { public?: boolean }) {
  const metrics = new ServiceMetrics({ defaultMetrics: false });
  const http = buildHttpApp({ logger: silentLogger(), verifier, bodyLimitBytes: 1024 });
  instrumentHttp(http, metrics);
  registerMetricsRoute(http, metrics, options);
  const url = await http.listen({ host: '127.0.0.1', port: 0 });
  return {
    get: async (path: string, headers: Record<string, string> = {}) => {
      const response = await fetch(`${url}${path}`, { headers });
      return { statusCode: response.status, contentType: response.headers.get('content-type') ?? '', body: await response.text() };
    },
    close: () => http.close(),
  };
}

describe('GET /metrics access', () => {
  test("by default: 401 without a token, 403 with a tenant's roles (admin included), 200 with operator or metrics", async () => {
    const http = await app({});
    expect((await http.get('/metrics')).statusCode).toBe(401);
    for (const roles of ['writer', 'admin', 'admin.writer.reader']) {
      const refused = await http.get('/metrics', { authorization: `Bearer roles.${roles}` });
      expect(refused.statusCode).toBe(403);
      expect(JSON.parse(refused.body)).toMatchObject({ code: 'DB_FORBIDDEN', rule: 'operator-role', stage: 'auth' });
      expect(refused.body).not.toContain('deltabroker_');
    }
    for (const role of ['operator', 'metrics']) {
      const answer = await http.get('/metrics', { authorization: `Bearer roles.reader.${role}` });
      expect(answer.statusCode).toBe(200);
      expect(answer.body).toContain(`${METRIC_NAMES.httpRequests}{route="/metrics",method="GET",status="403"} 3`);
    }
    await http.close();
  });

  test('public: no token needed', async () => {
    const http = await app({ public: true });
    const answer = await http.get('/metrics');
    expect(answer.statusCode).toBe(200);
    expect(answer.contentType).toContain('text/plain');
    await http.close();
  });
});
