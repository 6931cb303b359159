import neostandard from 'neostandard'

// The channel package's code (what it ships) reads without side scrolling: no line over 120 characters
// but a URL's, which cannot be broken. packages/channel/test/layout.test.js checks the same lines.
const CHANNEL_MAX_LEN = { code: 120, ignoreUrls: true }

export default [
  ...neostandard({
    ts: true,
    // the compat kinds' build output (wattpm build: Next's .next, Vite's client/dist)
    ignores: ['node_modules/**', 'results/**', '.cache/**', '.tap/**', 'packages/channel/types/**', 'tools/watt-compat/kinds/*/web/*/.next/**', 'tools/watt-compat/kinds/*/web/*/client/dist/**', 'bench/apps/nextstore/storefront-next/.next/**']
  }),
  {
    name: 'watt-lab/channel-max-len',
    files: ['packages/channel/*.js', 'packages/channel/lib/**/*.js'],
    rules: { '@stylistic/max-len': ['error', CHANNEL_MAX_LEN] }
  }
]
