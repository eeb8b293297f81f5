/** The console's only way to the service: same-origin JSON routes with the Bearer token kept in sessionStorage. */
const TOKEN_KEY = 'deltabroker.token';

export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  signIn: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  signOut: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** A refusal as the service words it (problem+json). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Record<string, unknown>,
  ) {
    super(typeof problem.detail === 'string' ? problem.detail : `HTTP ${status}`);
  }
}

export async function api<T>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  const token = session.token();
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
  const answer = (await response.json()) as unknown;
  if (!response.ok) throw new ApiError(response.status, answer as Record<string, unknown>);
  return answer as T;
}

export interface Principal {
  user: string;
  tenant: string;
  roles: string[];
}
