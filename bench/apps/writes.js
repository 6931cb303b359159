// @ts-check
// After a write run: what the orders table holds against what was sent and
// acknowledged. Every acknowledged order must be there exactly once with its
// total; no order twice; no row the run did not send. An order sent but not
// answered (in flight when the load stopped) may be there once or not at all.
import { readOrders } from './database.js'

/**
 * @param {string} file   the runtime's SQLite file
 * @param {import('./expected.js').WriteLog} writes
 * @param {number} rowsBefore  rows the table held before the run (the seeded table: none)
 * @returns {{ failures: string[], table: { rowsBefore: number, rowsAfter: number, sent: number, acknowledged: number, inFlightWritten: number, lost: number, duplicated: number, unknown: number, wrongTotal: number } }}
 */
export function checkWrites (file, writes, rowsBefore) {
  const { rows, byRef } = readOrders(file)
  let lost = 0
  let duplicated = 0
  let unknown = 0
  let wrongTotal = 0
  let inFlightWritten = 0
  for (const ref of writes.acknowledged) if (!byRef.has(ref)) lost++
  for (const [ref, row] of byRef) {
    const total = writes.sent.get(ref)
    if (total === undefined) { unknown += row.count; continue }
    if (row.count > 1) duplicated += row.count - 1
    if (row.totalCents !== total) wrongTotal++
    if (!writes.acknowledged.has(ref)) inFlightWritten++
  }
  const failures = []
  if (lost) failures.push(`${lost} acknowledged order(s) missing from the table (lost)`)
  if (duplicated) failures.push(`${duplicated} order(s) written twice or more (duplicated)`)
  if (unknown) failures.push(`${unknown} row(s) the run never sent`)
  if (wrongTotal) failures.push(`${wrongTotal} row(s) with the wrong total`)
  const table = { rowsBefore, rowsAfter: rows, sent: writes.sent.size, acknowledged: writes.acknowledged.size, inFlightWritten, lost, duplicated, unknown, wrongTotal }
  return { failures, table }
}
