// @ts-check
// The api app calls this app back (/via-frontend → /hello): the kind as a callee.
import { fromApi } from '../api.js'

export const dynamic = 'force-dynamic'

export async function GET () {
  return Response.json({ from: 'next', ...(await fromApi('/via-frontend')) })
}
