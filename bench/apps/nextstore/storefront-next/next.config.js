// @ts-check
// Nothing fetched from outside: no image optimisation.
/** @type {Record<string, unknown>} */
const config = {
  images: { unoptimized: true },
  poweredByHeader: false
}
export default config
