// @ts-check
// The apps' seeded data: categories and products drawn from a fixed seed, so
// the database the runtime serves and the answers the harness expects come
// from the same rows. Pure data: no SQLite here (database.js writes it).
import { mulberry32 } from '../data/dataset/prng.js'

export const CATEGORY_COUNT = 100
export const PRODUCT_COUNT = 20_000
export const DATASET_SEED = 44

/**
 * @typedef {{ id: number, name: string }} Category
 * @typedef {{ id: number, categoryId: number, name: string, priceCents: number, stock: number }} Product
 * @typedef {{ categories: Category[], products: Product[], byCategory: Map<number, Product[]> }} Dataset
 */

/** @type {Dataset | undefined} */
let cached

/**
 * Every category and product, the same on every machine.
 * @returns {Dataset}
 */
export function dataset () {
  if (cached) return cached
  const draw = mulberry32(DATASET_SEED)
  /** @type {Category[]} */
  const categories = []
  for (let id = 1; id <= CATEGORY_COUNT; id++) categories.push({ id, name: `category-${id}-${(draw() % 46656).toString(36)}` })
  /** @type {Product[]} */
  const products = []
  /** @type {Map<number, Product[]>} */
  const byCategory = new Map(categories.map((c) => [c.id, []]))
  for (let id = 1; id <= PRODUCT_COUNT; id++) {
    const categoryId = 1 + (draw() % CATEGORY_COUNT)
    const product = { id, categoryId, name: `product-${id}-${(draw() % 1679616).toString(36)}`, priceCents: 99 + (draw() % 99_901), stock: draw() % 500 }
    products.push(product)
    const inCategory = /** @type {Product[]} */ (byCategory.get(categoryId))
    inCategory.push(product)
  }
  cached = { categories, products, byCategory }
  return cached
}
