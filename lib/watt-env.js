// @ts-check
// watt.env, rendered from lib/topology.js: the defaults `wattpm start --env watt.env`
// fills watt.json's placeholders with (real environment variables win). The file is
// committed so `wattpm` works alone; test/lib/topology.test.js fails when it drifts.
import { PORTS, SETTINGS } from './topology.js'

/** @returns {string} the exact text of watt.env */
export function renderWattEnv () {
  const lines = [
    '# Generated from lib/topology.js by `npm run watt-env`: edit the topology, not this file.',
    '# Defaults for `wattpm start --env watt.env`; real environment variables win.',
    ...PORTS.map(({ env, defaultPort }) => `${env}=${defaultPort}`),
    ...SETTINGS.map((setting) => `${setting.env}=${setting.default}`)
  ]
  return lines.join('\n') + '\n'
}
