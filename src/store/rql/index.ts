export * from './ast';
export { compileRql, globToLike, COLUMN_TYPES, SYSTEM_COLUMNS, DEFAULT_LIMIT, MAX_LIMIT } from './compiler';
export type { CompileOptions, CompiledRql, MetaColumn, ResultColumn } from './compiler';
export { parseRql, type ParseOptions } from './parser';
export { parseValue, parseDate } from './values';
export { formatRql, formatFilter, formatValue, encodeRqlText } from './format';
export { tokenize, percentDecode, type Token } from './tokenizer';
export { decodeRow, decodeCount, totalFromPage } from './rows';
