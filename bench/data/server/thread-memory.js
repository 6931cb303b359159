// @ts-check
// What this worker thread holds, for /stats: its V8 heap (young generation
// apart: Watt lets it grow to maxYoungGeneration) and the memory outside the
// heap that its Buffers keep alive. RSS is the process's, shared by all threads.
import { getHeapSpaceStatistics } from 'node:v8'

export function threadMemory () {
  const { heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage()
  const newSpace = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')
  return { heapTotalBytes: heapTotal, heapUsedBytes: heapUsed, newSpaceBytes: newSpace?.physical_space_size ?? 0, externalBytes: external, arrayBuffersBytes: arrayBuffers }
}
