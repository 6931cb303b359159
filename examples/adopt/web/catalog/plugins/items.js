// @ts-check
// catalog: a Fastify service (@platformatic/service). It owns the items; prices
// live in the pricing app, reached the way any Watt app reaches another: fetch()
// to http://pricing.plt.local. Nothing here knows which path carries the call.

/** @typedef {{ id: string, name: string }} Item */

/** @type {Item[]} */
const ITEMS = [
  { id: '1', name: 'kettle' },
  { id: '2', name: 'mug' },
  { id: '3', name: 'teapot' }
]

/** @param {import('fastify').FastifyInstance} app */
export default async function items (app) {
  // Read by pricing's /quote: the call from pricing to catalog.
  app.get('/items', async () => ITEMS)

  // One item with its price: the call from catalog to pricing.
  app.get('/items/:id', async (req, reply) => {
    const { id } = /** @type {{ id: string }} */ (req.params)
    const item = ITEMS.find((i) => i.id === id)
    if (!item) return reply.code(404).send({ error: `no item ${id}` })
    const res = await fetch(`http://pricing.plt.local/price/${encodeURIComponent(id)}`)
    if (res.status !== 200) return reply.code(502).send({ error: `pricing answered ${res.status}` })
    const { cents } = /** @type {{ cents: number }} */ (await res.json())
    return { ...item, cents }
  })

  // A quote is pricing's job; this route only exposes it (pricing is not the entrypoint).
  app.get('/quote', async (req, reply) => {
    const { ids = '' } = /** @type {{ ids?: string }} */ (req.query)
    const res = await fetch(`http://pricing.plt.local/quote?ids=${encodeURIComponent(ids)}`)
    return reply.code(res.status).type('application/json').send(await res.text())
  })
}
