/**
 * docs/http-api.md's route table lists the routes the fastify app registers, no more and no fewer. The routes are
 * read from src/http/routes/ (`app.get('/path', …)`), so a new route without a row fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readPage, ROOT } from '../../support/markdown';

const ROUTES_DIR = path.join(ROOT, 'src/http/routes');

function registeredRoutes(): string[] {
  const routes: string[] = [];
  for (const file of readdirSync(ROUTES_DIR).filter((name) => name.endsWith('.ts'))) {
    const source = readFileSync(path.join(ROUTES_DIR, file), 'utf8');
    for (const match of source.matchAll(/\bapp\.(get|post|put|patch|delete)(?:<[^>]*>)?\(\s*'([^']+)'/g)) {
      routes.push(`${(match[1] as string).toUpperCase()} ${match[2] as string}`);
    }
  }
  return routes.sort();
}

/** Routes named in the first column of the page's route table (`| \`GET /keys\`, \`POST /keys/rotate\` | …`). */
function documentedRoutes(): string[] {
  const page = readPage('docs/http-api.md');
  const table = page.slice(page.indexOf('| route | role |'), page.indexOf('\n\n', page.indexOf('| route | role |')));
  return table
    .split('\n')
    .map((row) => row.split('|')[1] ?? '')
    .flatMap((cell) => [...cell.matchAll(/`((?:GET|POST|PUT|PATCH|DELETE) \/[^`]*)`/g)].map((m) => m[1] as string))
    .sort();
}

describe('docs/http-api.md route table', () => {
  test('the routes are read from the sources at all', () => {
    expect(registeredRoutes()).toEqual(expect.arrayContaining(['GET /health', 'POST /dispatch', 'POST /']));
  });

  test('lists exactly the routes the app registers', () => {
    expect(documentedRoutes()).toEqual(registeredRoutes());
  });
});
