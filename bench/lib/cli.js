// @ts-check
// Flag parsing for every bench command: node:util parseArgs (maintained in core)
// plus typed, bounded values and a --help generated from the same spec.

import { parseArgs } from 'node:util'

/**
 * @typedef {object} FlagSpec
 * @property {'integer' | 'number' | 'string' | 'list' | 'boolean'} type
 * @property {unknown} [default]
 * @property {number} [min]
 * @property {number} [max]
 * @property {readonly string[]} [choices]  allowed values (for list: each item)
 * @property {string} help
 */

export class UsageError extends Error {
  name = 'UsageError'
}

/**
 * @param {string[]} argv
 * @param {Record<string, FlagSpec>} spec
 * @param {{ command: string, description: string }} about
 * @returns {Record<string, any>}
 */
export function parseFlags (argv, spec, about) {
  const options = Object.fromEntries(Object.entries(spec).map(([name, flag]) => [name, { type: flag.type === 'boolean' ? 'boolean' : 'string' }]))
  options.help = { type: 'boolean' }
  /** @type {Record<string, any>} */
  let values
  try {
    ({ values } = parseArgs({ args: argv, options: /** @type {any} */ (options), strict: true, allowPositionals: false }))
  } catch (err) {
    throw new UsageError(`${/** @type {Error} */ (err).message}\n\n${usage(spec, about)}`)
  }
  if (values.help) {
    process.stdout.write(usage(spec, about) + '\n')
    process.exit(0)
  }
  /** @type {Record<string, any>} */
  const flags = {}
  for (const [name, flag] of Object.entries(spec)) {
    const raw = values[name]
    flags[camel(name)] = raw === undefined ? flag.default : convert(name, flag, raw)
  }
  return flags
}

/**
 * @param {string} name
 * @param {FlagSpec} flag
 * @param {string | boolean} raw
 */
function convert (name, flag, raw) {
  if (flag.type === 'boolean') return raw
  const text = String(raw)
  if (flag.type === 'integer' || flag.type === 'number') {
    const value = Number(text)
    if (text.trim() === '' || !Number.isFinite(value) || (flag.type === 'integer' && !Number.isInteger(value))) {
      throw new UsageError(`--${name} must be ${flag.type === 'integer' ? 'an integer' : 'a number'}, got ${JSON.stringify(text)}`)
    }
    if ((flag.min !== undefined && value < flag.min) || (flag.max !== undefined && value > flag.max)) {
      throw new UsageError(`--${name} must be from ${flag.min ?? '-∞'} to ${flag.max ?? '∞'}, got ${value}`)
    }
    return value
  }
  if (flag.type === 'list') {
    const items = text.split(',').map((item) => item.trim()).filter(Boolean)
    if (items.length === 0) throw new UsageError(`--${name} needs at least one value`)
    for (const item of items) checkChoice(name, flag, item)
    return [...new Set(items)]
  }
  checkChoice(name, flag, text)
  return text
}

/**
 * @param {string} name
 * @param {FlagSpec} flag
 * @param {string} value
 */
function checkChoice (name, flag, value) {
  if (flag.choices && !flag.choices.includes(value)) {
    throw new UsageError(`--${name}: unknown value ${JSON.stringify(value)}; choose from ${flag.choices.join(', ')}`)
  }
}

/** @param {string} name */
function camel (name) {
  return name.replace(/-([a-z])/g, (_, c) => c.toUpperCase())
}

/**
 * @param {Record<string, FlagSpec>} spec
 * @param {{ command: string, description: string }} about
 */
export function usage (spec, about) {
  const lines = [`Usage: ${about.command} [flags]`, '', about.description, '', 'Flags:']
  for (const [name, flag] of Object.entries(spec)) {
    const value = flag.type === 'boolean' ? '' : flag.type === 'list' ? ' a,b' : ` <${flag.type === 'string' ? 'value' : 'n'}>`
    const def = flag.default === undefined ? '' : ` (default ${Array.isArray(flag.default) ? flag.default.join(',') : flag.default})`
    lines.push(`  --${name}${value}`.padEnd(28) + flag.help + def)
  }
  lines.push('  --help'.padEnd(28) + 'show this help')
  return lines.join('\n')
}

/**
 * Runs a command's main function: usage errors exit 2 with the message, other
 * failures exit 1 with their stack.
 * @param {() => Promise<number | void>} main
 */
export function runMain (main) {
  main().then((code) => {
    process.exitCode = code ?? 0
  }, (err) => {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n`)
      process.exitCode = 2
    } else {
      process.stderr.write(`${err?.stack ?? err}\n`)
      process.exitCode = 1
    }
  })
}
