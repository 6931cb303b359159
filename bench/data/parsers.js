// @ts-check
// What parses the data in each mode: every report row names it, so a slow row
// reads as "this parser is slow", not "streaming is slow".

/** @type {Record<'stream' | 'scan' | 'promise', { parser: string, short: string }>} */
export const PARSER_OF_MODE = {
  stream: { parser: 'stream-json (a tokenizer in JavaScript), streamed', short: 'stream-json' },
  scan: { parser: 'line cuts (record scanner otherwise) + native JSON.parse per chunk, streamed', short: 'line cuts + JSON.parse' },
  promise: { parser: 'native JSON.parse of the whole text, buffered', short: 'JSON.parse whole' }
}

/**
 * @param {string} mode
 * @param {string | null} [streamJsonVersion]
 */
export function parserName (mode, streamJsonVersion) {
  const entry = PARSER_OF_MODE[/** @type {keyof typeof PARSER_OF_MODE} */ (mode)]
  if (!entry) return 'unknown'
  return mode === 'stream' && streamJsonVersion ? entry.short.replace('stream-json', `stream-json ${streamJsonVersion}`) : entry.short
}

/**
 * The parser a result names for a mode: as recorded when it ran (the parsers
 * change between commits), else today's.
 * @param {string} mode
 * @param {{ parsers?: Record<string, string>, streamJsonVersion?: string | null } | undefined} config  a data result's config
 */
export function recordedParser (mode, config) {
  return config?.parsers?.[mode] ?? parserName(mode, config?.streamJsonVersion)
}
