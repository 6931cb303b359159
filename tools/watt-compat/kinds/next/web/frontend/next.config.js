// @ts-check
// No telemetry, no image optimisation (nothing to fetch from outside), no lint during the build.
/** @type {Record<string, unknown>} */
const config = {
  images: { unoptimized: true },
  poweredByHeader: false
}
export default config
