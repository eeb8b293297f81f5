import { createCipheriv, randomBytes } from 'node:crypto';
import http from 'node:http';

/**
 * The platform's ceiling for `POST /dispatch` with method aes: node:http alone, with no framework, no
 * authentication, no keyring, no metrics and no access log. It does what the route cannot skip (read the body,
 * parse its JSON, AES-256-GCM the payload with a fresh nonce, answer the ciphertext as JSON) and answers any
 * GET with the body of `/health`, so both rates of the ceiling come from one server.
 */
export interface BareEncryptServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startBareEncryptServer(): Promise<BareEncryptServer> {
  const key = randomBytes(32);
  const aad = Buffer.from('aes256skv1:default:v1|acme');
  const answer = (res: http.ServerResponse, body: string): void => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') return answer(res, '{"status":"ok"}');
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const { payload } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { payload: string };
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(aad);
      const sealed = Buffer.concat([nonce, cipher.update(Buffer.from(payload, 'utf8')), cipher.final(), cipher.getAuthTag()]);
      answer(res, JSON.stringify({ method: 'aes', keyRef: 'default', ciphertext: `aes256skv1:default:v1:${sealed.toString('base64url')}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
