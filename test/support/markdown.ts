/**
 * Just enough Markdown for the doc tests: the pages, their fenced blocks, headings and their GitHub anchors, and
 * inline links. Text inside fenced blocks is neither a heading nor a link (a `# comment` in a shell block is not).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');

/** README.md and every page of docs/, as paths relative to the checkout. */
export function documentationPages(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

export const readPage = (page: string): string => readFileSync(path.join(ROOT, page), 'utf8');

export interface FencedBlock {
  /** The info string's first word (`sh`, `json`, ``), lowercased. */
  readonly language: string;
  readonly text: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The nearest non-blank line before the fence (where a `<!-- doc-test: … -->` marker goes). */
  readonly before: string;
}

/** Splits a page into its fenced blocks and the prose lines outside them (blocks' lines replaced by ''). */
export function parseMarkdown(text: string): { blocks: FencedBlock[]; prose: string[] } {
  const lines = text.split('\n');
  const blocks: FencedBlock[] = [];
  const prose: string[] = [];
  let open: { fence: string; language: string; line: number; before: string; body: string[] } | undefined;
  lines.forEach((line, index) => {
    if (open) {
      const closing = /^\s{0,3}(`{3,}|~{3,})\s*$/.exec(line)?.[1];
      if (closing && closing[0] === open.fence[0] && closing.length >= open.fence.length) {
        blocks.push({ language: open.language, text: open.body.join('\n'), line: open.line, before: open.before });
        open = undefined;
      } else {
        open.body.push(line);
      }
      prose.push('');
      return;
    }
    const fence = /^\s{0,3}(`{3,}|~{3,})\s*([^\s`]*)/.exec(line);
    if (fence) {
      const before = [...prose].reverse().find((l) => l.trim() !== '') ?? '';
      open = { fence: fence[1] as string, language: (fence[2] ?? '').toLowerCase(), line: index + 1, before, body: [] };
      prose.push('');
      return;
    }
    prose.push(line);
  });
  return { blocks, prose };
}

/** GitHub's anchor for a heading's text: inline markup dropped, lowercased, punctuation removed, spaces to hyphens. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images keep their text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/[`*]/g, ''); // code and emphasis markers (GitHub keeps `_`)
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a page defines: its headings' slugs, a repeated slug numbered `-1`, `-2`… as GitHub does. */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of parseMarkdown(text).prose) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = githubSlug(heading[1] as string);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

export interface Link {
  readonly target: string;
  readonly line: number;
}

/** Inline links and images outside code (`[text](target)`, the text may wrap), with the line the target is on. */
export function linksOf(text: string): Link[] {
  // Code spans become a placeholder of the same length without newlines, so lines keep their numbers.
  const prose = parseMarkdown(text)
    .prose.join('\n')
    .replace(/`[^`]*`/g, (span) => span.replace(/[^\n]/g, 'x'));
  return [...prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => ({
    target: match[1] as string,
    line: prose.slice(0, (match.index ?? 0) + match[0].length).split('\n').length,
  }));
}
