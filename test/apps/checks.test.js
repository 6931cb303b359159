// The checks bite: every route's check passes the answer the seeded rows
// give and fails one that is off by a cent or a row; the table check finds
// lost, duplicated and unknown orders; the path check wants every drop-in call
// over http-port on mesh-port and no drop-in elsewhere. The dataset has at
// least 10,000 rows over two related tables.
import t from 'tap'
import { DatabaseSync } from 'node:sqlite'
import { dataset } from '../../bench/apps/dataset.js'
import { readOrders, seededDatabases } from '../../bench/apps/database.js'
import { LIST_LIMIT, routeLoad } from '../../bench/apps/expected.js'
import { pathFailures } from '../../bench/apps/measure.js'
import { checkWrites } from '../../bench/apps/writes.js'
import { orderTotalCents } from '../../bench/apps/orders/pricing.js'

const { categories, products, byCategory } = dataset()

t.test('the seeded data: two related tables, at least 10,000 rows, the same every time', async (t) => {
  t.ok(categories.length + products.length >= 10_000)
  t.ok(products.every((p) => categories[p.categoryId - 1]?.id === p.categoryId), 'every product\'s category exists')
  t.same(dataset().products[123], products[123])
  const databases = seededDatabases()
  t.teardown(databases.remove)
  const db = new DatabaseSync(databases.copy('t'), { readOnly: true })
  t.teardown(() => db.close())
  t.equal(db.prepare('SELECT COUNT(*) AS n FROM products').get().n, products.length)
  t.equal(db.prepare('SELECT SUM(price_cents) AS s FROM products WHERE category_id = 7').get().s, byCategory.get(7).reduce((s, p) => s + p.priceCents, 0))
})

t.test('a read route\'s check passes the right answer and fails a wrong one', async (t) => {
  const list = routeLoad('catalog', 'list', { tag: 't' })
  const path = list.paths[0]
  const category = Number(/eq=(\d+)/.exec(path)[1])
  const rows = byCategory.get(category).slice(0, LIST_LIMIT).map((p) => ({ id: String(p.id), categoryId: String(p.categoryId), name: p.name, priceCents: p.priceCents, stock: p.stock }))
  t.equal(list.check(path, JSON.stringify(rows)), null)
  t.match(list.check(path, JSON.stringify(rows.slice(1))), /rows/)
  t.match(list.check(path, JSON.stringify(rows.map((r, i) => (i === 3 ? { ...r, priceCents: r.priceCents + 1 } : r)))), /sum of priceCents/)
  t.match(routeLoad('catalog', 'list', { tag: 't', wrong: true }).check(path, JSON.stringify(rows)), /sum of priceCents/, '--wrong-expectation makes the right answer fail')
  const item = routeLoad('catalog', 'item', { tag: 't' })
  const product = products[Number(item.paths[0].split('/').pop()) - 1]
  t.equal(item.check(item.paths[0], JSON.stringify({ ...product, id: String(product.id) })), null)
  t.match(item.check(item.paths[0], JSON.stringify({ ...product, name: 'x' })), /name/)
  t.match(item.check(item.paths[0], 'oops'), /not JSON/)
})

t.test('a write\'s check matches the row to the order sent, and only right rows count as acknowledged', async (t) => {
  const checkout = routeLoad('orders', 'checkout', { tag: 't' })
  const sent = checkout.write(checkout.paths[0]).body
  const order = JSON.parse(sent)
  t.match(order.ref, /^t-w1$/)
  t.notOk('totalCents' in order, 'a checkout has its total quoted by pricing-api')
  const total = orderTotalCents(products[order.productId - 1].priceCents, order.quantity)
  t.match(checkout.check('/checkout', JSON.stringify({ id: 9, ...order, totalCents: total + 1 }), sent), /totalCents/)
  t.equal(checkout.writes.acknowledged.size, 0)
  t.equal(checkout.check('/checkout', JSON.stringify({ id: 9, ...order, totalCents: total }), sent), null)
  t.same([...checkout.writes.acknowledged], [order.ref])
  checkout.writes.setPhase('m')
  t.match(JSON.parse(checkout.write('/checkout').body).ref, /^t-m2$/, 'measured orders apart from the warm-up\'s')
})

t.test('the table check finds lost, duplicated and unknown orders', async (t) => {
  const databases = seededDatabases()
  t.teardown(databases.remove)
  const file = databases.copy('w')
  const writes = { sent: new Map([['a', 100], ['b', 200], ['c', 300]]), acknowledged: new Set(['a', 'b']) }
  const db = new DatabaseSync(file)
  const insert = db.prepare('INSERT INTO orders (ref, product_id, quantity, total_cents) VALUES (?, 1, 1, ?)')
  insert.run('a', 100)
  insert.run('c', 300) // sent, never acknowledged: in flight at the end, allowed
  t.same(checkWrites(file, writes, 0).failures.length, 1, 'b acknowledged but missing')
  t.match(checkWrites(file, writes, 0).failures[0], /1 acknowledged order\(s\) missing/)
  insert.run('b', 200)
  t.same(checkWrites(file, writes, 0), { failures: [], table: { rowsBefore: 0, rowsAfter: 3, sent: 3, acknowledged: 2, inFlightWritten: 1, lost: 0, duplicated: 0, unknown: 0, wrongTotal: 0 } })
  insert.run('a', 100)
  insert.run('zz', 1)
  db.close()
  const { failures } = checkWrites(file, writes, 0)
  t.match(failures.join('; '), /1 order\(s\) written twice/)
  t.match(failures.join('; '), /1 row\(s\) the run never sent/)
  t.equal(readOrders(file).rows, 5)
})

t.test('the drop-in\'s counter: every call over http-port on mesh-port, nothing on the other paths', async (t) => {
  const over = (mesh, httpPort) => ({ db: { mesh, httpPort: { 0: httpPort } } })
  t.same(pathFailures('mesh-port', over(0, 10)), [])
  t.match(pathFailures('mesh-port', over(2, 10)).join(), /2 call\(s\) fell back to Watt's mesh/)
  t.match(pathFailures('mesh-port', over(0, 0)).join(), /no call over http-port/)
  t.same(pathFailures('ipc', {}), [])
  t.match(pathFailures('tcp', over(0, 3)).join(), /whose config has no drop-in/)
})
