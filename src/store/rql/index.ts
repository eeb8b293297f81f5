export * from './ast';
export { compileRql, globToLike, COLUMN_TYPES, SYSTEM_COLUMNS, DEFAULT_LIMIT, MAX_LIMIT } from './compiler';
export type { CompileOptions, CompiledRql, MetaColumn, ResultColumn } from './compiler';
export { parseRql, parseValue, parseDate, type ParseOptions } from './parser';
export { formatRql, formatFilter, formatValue, encodeRqlText } from './format';
export { tokenize, percentDecode, type Token } from './tokenizer';
export { decodeRow, decodeCount } from './rows';
