/**
 * RQL tokens. The punctuation `( ) , & =` structures the query; every other run of characters is a `text`
 * token, kept raw (still percent-encoded) so that an encoded `%2C` or `%28` is data, never structure.
 * Unencoded whitespace around a text token is insignificant (`eq(name, ACME GmbH)` is `eq(name,ACME GmbH)`);
 * write `%20` for a space that matters at either end.
 */
import { rqlSyntaxError } from './errors';

export type TokenType = '(' | ')' | ',' | '&' | '=' | 'text' | 'eof';

export interface Token {
  type: TokenType;
  /** For text tokens: the raw characters, trimmed. Empty for punctuation and eof. */
  raw: string;
  pos: number;
}

const PUNCTUATION = new Set(['(', ')', ',', '&', '=']);
const WHITESPACE = /\s/;

export function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < query.length) {
    const ch = query[i] as string;
    if (PUNCTUATION.has(ch)) {
      tokens.push({ type: ch as TokenType, raw: '', pos: i });
      i++;
      continue;
    }
    if (WHITESPACE.test(ch)) {
      i++;
      continue;
    }
    const start = i;
    while (i < query.length && !PUNCTUATION.has(query[i] as string)) i++;
    tokens.push({ type: 'text', raw: query.slice(start, i).trimEnd(), pos: start });
  }
  tokens.push({ type: 'eof', raw: '', pos: query.length });
  return tokens;
}

/** Percent-decodes a raw text (UTF-8). A `+` stays a `+`. A malformed escape is a syntax error at its position. */
export function percentDecode(raw: string, pos: number, query: string): string {
  let text = raw;
  if (raw.includes('%')) {
    try {
      text = decodeURIComponent(raw);
    } catch {
      const bad = raw.search(/%(?![0-9A-Fa-f]{2})/);
      const at = bad >= 0 ? pos + bad : pos;
      throw rqlSyntaxError(query, at, 'malformed percent-encoding (use %XX with two hex digits, UTF-8)', 'percent-encoding');
    }
  }
  // PostgreSQL text cannot hold U+0000: refused here rather than failing inside the database.
  if (text.includes('\u0000')) {
    const at = raw.includes('\u0000') ? raw.indexOf('\u0000') : raw.search(/%00/);
    throw rqlSyntaxError(query, pos + Math.max(at, 0), 'U+0000 (NUL) is not allowed in a value', 'nul-character');
  }
  return text;
}
