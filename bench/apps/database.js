// @ts-check
// The SQLite file a runtime's db app serves: created and seeded once per suite
// in a temp dir (never in the repo), copied per runtime so every runtime starts
// from the same rows, and read afterwards to check what the writes left behind.
// node:sqlite (Node 24's own) keeps the harness off the db app's native driver.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { dataset } from './dataset.js'

const SCHEMA = `
CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE products (
  id INTEGER PRIMARY KEY,
  category_id INTEGER NOT NULL REFERENCES categories(id),
  name TEXT NOT NULL,
  price_cents INTEGER NOT NULL,
  stock INTEGER NOT NULL
);
CREATE INDEX products_category ON products(category_id);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  ref TEXT NOT NULL,
  product_id INTEGER NOT NULL REFERENCES products(id),
  quantity INTEGER NOT NULL,
  total_cents INTEGER NOT NULL
);
CREATE INDEX orders_ref ON orders(ref);
`

/**
 * A temp dir holding the seeded template; `copy()` gives each runtime its own file.
 * @returns {{ dir: string, template: string, copy: (name: string) => string, remove: () => void }}
 */
export function seededDatabases () {
  const dir = mkdtempSync(join(tmpdir(), 'watt-lab-apps-'))
  const template = join(dir, 'seed.sqlite')
  try {
    seed(template)
  } catch (err) {
    rmSync(dir, { recursive: true, force: true })
    throw err
  }
  return {
    dir,
    template,
    copy: (name) => {
      const file = join(dir, `${name}.sqlite`)
      copyFileSync(template, file)
      return file
    },
    remove: () => rmSync(dir, { recursive: true, force: true })
  }
}

/** @param {string} file */
function seed (file) {
  const db = new DatabaseSync(file)
  try {
    db.exec(SCHEMA)
    const { categories, products } = dataset()
    db.exec('BEGIN')
    const category = db.prepare('INSERT INTO categories (id, name) VALUES (?, ?)')
    for (const c of categories) category.run(c.id, c.name)
    const product = db.prepare('INSERT INTO products (id, category_id, name, price_cents, stock) VALUES (?, ?, ?, ?, ?)')
    for (const p of products) product.run(p.id, p.categoryId, p.name, p.priceCents, p.stock)
    db.exec('COMMIT')
  } finally {
    db.close()
  }
}

/**
 * What the orders table holds: rows in all, and per ref how many.
 * @param {string} file
 * @returns {{ rows: number, byRef: Map<string, { count: number, totalCents: number, productId: number, quantity: number }> }}
 */
export function readOrders (file) {
  // waits out the db app's own write lock as resetOrders does: without a timeout a read
  // that meets it fails at once ('database is locked', seen in a CI run)
  const db = new DatabaseSync(file, { readOnly: true, timeout: 5000 })
  try {
    /** @type {Map<string, { count: number, totalCents: number, productId: number, quantity: number }>} */
    const byRef = new Map()
    let rows = 0
    for (const row of /** @type {any[]} */ (db.prepare('SELECT ref, product_id, quantity, total_cents FROM orders').all())) {
      rows++
      const seen = byRef.get(row.ref)
      if (seen) seen.count++
      else byRef.set(row.ref, { count: 1, totalCents: row.total_cents, productId: row.product_id, quantity: row.quantity })
    }
    return { rows, byRef }
  } finally {
    db.close()
  }
}

/**
 * Puts the orders table back as seeded (empty), so the next run starts from the
 * same rows; the db app holds the file open, and SQLite's file locks keep the two apart.
 * @param {string} file
 */
export function resetOrders (file) {
  const db = new DatabaseSync(file, { timeout: 5000 })
  try {
    db.exec('DELETE FROM orders')
  } finally {
    db.close()
  }
}
