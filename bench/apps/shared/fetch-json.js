// @ts-check
// One call from an app to another, by fetch: the JSON body, or an error that
// names the call (the gateway answers 500 with it, and the run fails).

/** Far below Watt's 300 s: a call stuck on any path fails the request, and the run, instead of hanging it. */
const CALL_TIMEOUT_MS = 10_000

/**
 * @param {string} url
 * @param {{ method?: string, body?: unknown }} [options]
 */
export async function fetchJson (url, { method = 'GET', body } = {}) {
  const response = await fetch(url, {
    method,
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } })
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${url} answered ${response.status}: ${text.slice(0, 200)}`)
  return JSON.parse(text)
}
