/**
 * The shape issue 32 gave the documentation, kept: the README is the front door (at most 250 lines, the two
 * commands, a link to every page of docs/), each page starts by saying what question it answers, and the layer
 * diagram the README shows is the one docs/architecture.md explains.
 */
import { documentationPages, parseMarkdown, readPage } from '../../support/markdown';

const readme = readPage('README.md');
const pages = documentationPages().filter((page) => page !== 'README.md');

describe('the README', () => {
  test('is at most 250 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
  });

  test('states the two commands (CI runs its test command)', () => {
    const commands = parseMarkdown(readme).blocks.map((block) => block.text);
    expect(commands.some((text) => /^npm start\b/m.test(text) && /^npm test\b/m.test(text))).toBe(true);
  });

  test.each(pages)('links to %s', (page) => {
    expect(readme).toContain(`](${page})`);
  });

  test('shows the layer diagram of docs/architecture.md', () => {
    const diagram = parseMarkdown(readme).blocks.find((block) => block.text.includes('src/composition/'));
    expect(diagram).toBeDefined();
    expect(parseMarkdown(readPage('docs/architecture.md')).blocks.map((block) => block.text)).toContain(diagram?.text);
  });
});

describe('pages of docs/', () => {
  // records.md is generated from the Avro schemas and says so instead.
  test.each(pages.filter((page) => page !== 'docs/records.md'))('%s starts with the question it answers', (page) => {
    const firstParagraph = readPage(page).split('\n\n')[1] ?? '';
    expect(firstParagraph).toMatch(/^What this page answers: /);
  });
});
