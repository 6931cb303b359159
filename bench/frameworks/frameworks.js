// @ts-check
// The frameworks under test: each one's server file and the npm package whose
// version the result records (node:http's version is Node's).
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const SERVERS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'servers')

/** @type {Record<string, string | null>} framework name → npm package (null: part of Node) */
const PACKAGES = {
  express: 'express',
  hapi: '@hapi/hapi',
  'node-http': null,
  polka: 'polka',
  restana: 'restana',
  restify: 'restify',
  'find-my-way': 'find-my-way',
  fastify: 'fastify'
}

export const FRAMEWORKS = /** @type {string[]} */ (Object.keys(PACKAGES))
export const FRAMEWORK_PACKAGES = /** @type {string[]} */ (Object.values(PACKAGES).filter(Boolean))

/** @param {string} name */
export function serverFile (name) {
  if (!(name in PACKAGES)) throw new Error(`unknown framework ${name}`)
  return join(SERVERS_DIR, `${name}.js`)
}

/** @param {string} name */
export function packageOf (name) {
  return PACKAGES[name] ?? null
}
