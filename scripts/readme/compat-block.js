// @ts-check
// The channel README's table of Watt releases, from `npm run compat`'s result.

/**
 * @param {any} compat  results/published/compat.json
 * @returns {string}
 */
export function compatBlock (compat) {
  const rows = compat.releases.map((/** @type {any} */ r) => {
    const calls = Object.values(r.calls ?? {})
    const over = (/** @type {string} */ path) => calls.reduce((n, /** @type {any} */ c) => n + (c[path] ?? 0), 0)
    const total = calls.reduce((n, /** @type {any} */ c) => n + (c.calls ?? 0), 0)
    const node = r.installed?.['@platformatic/node'] ?? '?'
    const result = r.result === 'pass' ? 'pass' : `**${r.result}**: ${r.reason}`
    return `| ${r.release} | ${node} | ${result} | ${over('http-port')} of ${total} | ${over('mesh')} |`
  })
  return [
    `Measured by \`npm run compat\` (channel ${compat.channel}, ${compat.finishedAt.slice(0, 10)}, Node ${compat.machine.node}): for each release, the packed tarball installed into a Watt app of its own, started with \`wattpm start\`, every answer checked, the path of every call read from the counter.`,
    '',
    '| Watt (wattpm, runtime, service) | @platformatic/node | result | calls over http-port | over the mesh |',
    '|---|---|---|---:|---:|',
    ...rows,
    ''
  ].join('\n')
}
