/**
 * Every relative link of the README and of docs/ leads somewhere: the file or folder exists, and an anchor
 * (`page.md#section`, `#section`) names a heading of that Markdown file by GitHub's rules. A page that moves or a
 * heading that is renamed breaks this test, not a reader's click.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { anchorsOf, documentationPages, githubSlug, linksOf, ROOT } from '../../support/markdown';

const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/** What is wrong with one link of `page` (undefined when nothing is). */
function brokenLink(page: string, target: string): string | undefined {
  if (EXTERNAL.test(target)) return undefined;
  const [file = '', anchor] = target.split('#', 2);
  const resolved = file === '' ? path.join(ROOT, page) : path.resolve(path.dirname(path.join(ROOT, page)), decodeURI(file));
  if (!resolved.startsWith(ROOT + path.sep)) return `${target} leaves the checkout`;
  if (!existsSync(resolved)) return `${target}: no such file`;
  if (anchor === undefined) return undefined;
  if (!resolved.endsWith('.md')) return `${target}: an anchor into a file that is not Markdown`;
  return anchorsOf(readFileSync(resolved, 'utf8')).has(decodeURIComponent(anchor)) ? undefined : `${target}: no heading with that anchor`;
}

describe('links of the README and docs/', () => {
  test.each(documentationPages())('every relative link and anchor of %s resolves', (page) => {
    const broken = linksOf(readFileSync(path.join(ROOT, page), 'utf8'))
      .map((link) => ({ line: link.line, problem: brokenLink(page, link.target) }))
      .filter((link) => link.problem !== undefined)
      .map((link) => `${page}:${link.line}: ${link.problem}`);
    expect(broken).toEqual([]);
  });
});

describe('GitHub heading anchors', () => {
  test.each([
    ['Refused deltas: list, show, retry', 'refused-deltas-list-show-retry'],
    ['`POST /dispatch`', 'post-dispatch'],
    ['Without Docker: `deltabroker stack`', 'without-docker-deltabroker-stack'],
    ["The service's own write log without a Kafka client", 'the-services-own-write-log-without-a-kafka-client'],
    ['Erasing a data subject (crypto-shredding)', 'erasing-a-data-subject-crypto-shredding'],
    ['names_and_tenant namespaces', 'names_and_tenant-namespaces'],
  ])('%s → #%s', (heading, slug) => {
    expect(githubSlug(heading)).toBe(slug);
  });

  test('a repeated heading gets -1, -2 …, and headings inside fenced blocks are not headings', () => {
    const page = ['# Page', '## Notes', '```sh', '# not a heading', '```', '## Notes', '## Notes'].join('\n');
    expect([...anchorsOf(page)]).toEqual(['page', 'notes', 'notes-1', 'notes-2']);
  });

  test('links inside code spans and fenced blocks are not links', () => {
    const page = ['see [here](a.md) and `[not](b.md)`', '```md', '[nor](c.md)', '```', '[wrapped', 'text](d.md#x)'].join('\n');
    expect(linksOf(page)).toEqual([
      { target: 'a.md', line: 1 },
      { target: 'd.md#x', line: 6 },
    ]);
  });
});
