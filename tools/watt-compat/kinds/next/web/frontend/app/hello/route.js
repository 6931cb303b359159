// @ts-check
// Calls nothing: the api app calls it back (the kind as a callee).
export const dynamic = 'force-dynamic'

export function GET () {
  return Response.json({ hello: 'next' })
}
