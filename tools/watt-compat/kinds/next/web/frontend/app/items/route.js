// @ts-check
// An App Router route handler that proxies one call to the api app.
import { fromApi } from '../api.js'

export const dynamic = 'force-dynamic'

export async function GET () {
  return Response.json({ from: 'next', ...(await fromApi('/items')) })
}
