// @ts-check
// The channel README's table of app kinds (Next.js, NestJS, Vite SSR beside an api app),
// from the `kinds` of `npm run compat`'s result (scripts/compat/kinds.js).

/**
 * @param {any} compat  results/published/compat.json
 * @returns {string[]}  lines, none when the result has no kinds
 */
export function kindsTable (compat) {
  /** @type {any[]} */
  const kinds = compat.kinds ?? []
  if (kinds.length === 0) return []
  const cost = kinds.map((k) => `${k.kind} ${k.installedMiB ?? '?'} MiB installed, checked in ${formatSeconds(k.seconds)} (${k.installSeconds ? `npm ci ${formatSeconds(k.installSeconds)}` : 'installed before'}${k.buildSeconds ? `, build ${formatSeconds(k.buildSeconds)}` : ''})`).join('; ')
  return [
    'Each kind is a small app under `tools/watt-compat/kinds/<kind>` (its `package.json` pinned, its lockfile committed): the kind\'s ' +
      '`frontend` is the entrypoint and calls a node:http `api` app of two workers with `fetch(\'http://api.plt.local/…\')`, and the `api` ' +
      'calls the frontend back once (`/via-api`), so each kind is checked as a caller and as a callee. `npm run compat` installs each on demand ' +
      '(`npm ci` in its folder), builds it with its own `wattpm build` where the kind has a build, starts it with `wattpm start` (Node ' +
      `${compat.nodes.find((/** @type {any} */ n) => n.major === '24')?.version ?? '24'}) over Watt's mesh and over the drop-in, compares every answer byte for byte and reads ` +
      `the path of every call from the counter. What the kinds cost here: ${cost}; \`npm test\` runs the NestJS kind only.`,
    '',
    '| Kind | Versions | Result | frontend → api | api → frontend | Traps |',
    '|---|---|---|---|---|---|',
    ...kinds.map((k) => `| ${k.kind} | ${versions(k)} | ${k.result === 'pass' ? 'pass' : `**${k.result}**: ${escape(k.problems?.[0] ?? '')}`} | ${path(k.calls?.['frontend → api'])} | ${path(k.calls?.['api → frontend'])} | ${escape((k.traps ?? []).join('; ')) || '–'} |`),
    ''
  ]
}

/** @param {any} kind */
function versions (kind) {
  const installed = kind.installed ?? {}
  const names = [kind.capability, ...Object.keys(installed).filter((name) => name !== kind.capability && !name.startsWith('@platformatic/') && !['wattpm', 'react-dom', 'reflect-metadata', 'rxjs', '@nestjs/common', '@nestjs/platform-express'].includes(name)), 'wattpm']
  return names.map((name) => `${name} ${installed[name] ?? '?'}`).join(', ')
}

/** @param {any} calls */
function path (calls) {
  if (!calls) return '–'
  const via = calls.mesh > 0 ? `${calls.mesh} of ${calls.calls} on the mesh${calls.decided ? ` (${escape(calls.decided)})` : ''}` : `${calls['http-port']} of ${calls.calls} over http-port`
  return via
}

/** @param {number} seconds */
function formatSeconds (seconds) {
  return seconds >= 90 ? `${Math.round(seconds / 60)} min` : `${seconds} s`
}

/** @param {string} text */
function escape (text) {
  return String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ')
}
