// @ts-check
// An App Router route handler that proxies one call through the gateway to the db.
import { fromGateway } from '../../../gateway.js'

export const dynamic = 'force-dynamic'

/** @param {Request} _request @param {{ params: Promise<{ id: string }> }} context */
export async function GET (_request, { params }) {
  const { id } = await params
  return Response.json(await fromGateway(`/products/${Number(id)}`))
}
