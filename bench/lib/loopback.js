// @ts-check
// The one loopback rule of the harness: what a load may target and what a
// service address may be without --service-host. Every server here binds
// 127.0.0.1 only, so IPv4 loopback (127.0.0.0/8) and the name localhost are
// loopback; IPv6 ::1 is refused everywhere alike, since nothing listens there.

/**
 * @param {string} host  a bare host, or a URL's hostname ("[::1]" for IPv6)
 */
export function isLoopbackHost (host) {
  return host === 'localhost' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}

/**
 * Throws unless the URL targets loopback.
 * @param {string} url
 */
export function assertLoopbackUrl (url) {
  const host = new URL(url).hostname
  if (!isLoopbackHost(host)) throw new Error(`load tests target loopback (127.0.0.1) only, not ${host}`)
}
