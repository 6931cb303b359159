// @ts-check
// Load: the original write-up's profile (100 connections, pipelining 10) on one
// transport, every body verified. The write-up's TCP route returned 5xx for 24%
// of its requests under this load; here any non-2xx, error, timeout or wrong
// body fails the run (the harness's failuresOf does the judging).
import { runLoad } from '../../lib/load.js'
import { entryUrl, expectedEntryBody } from '../../transports/expected.js'
import { PROFILES } from '../../transports/profiles.js'
import { waitUntilSettled } from '../health.js'

/**
 * @param {{ url: string }} runtime
 * @param {{ transport: string, duration: number, size?: number, fanout?: number, profile?: { connections: number, pipelining: number }, onTick?: (s: number) => void }} options
 *   profile: a lighter load than the seed's, for a runtime whose call timeout is too short for it (a test's)
 */
export async function loadUnderSeedProfile (runtime, { transport, duration, size = 64, fanout = 4, profile = PROFILES.seed, onTick }) {
  await waitUntilSettled(runtime.url)
  const load = await runLoad({
    url: entryUrl(runtime.url, transport, size, fanout),
    ...profile,
    duration,
    expectBody: expectedEntryBody(transport, size, fanout),
    onTick
  })
  // What autocannon left in flight at its deadline is still being answered: wait it out, and say how long it took.
  const drainMs = await waitUntilSettled(runtime.url)
  return { load, loadProfile: { ...profile, duration, size, fanout }, drainMs }
}
