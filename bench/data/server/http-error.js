// @ts-check
// An error that carries the HTTP status the API answers with (Fastify reads
// `statusCode` from a thrown error).
export class HttpError extends Error {
  /**
   * @param {number} statusCode
   * @param {string} message
   */
  constructor (statusCode, message) {
    super(message)
    this.name = 'HttpError'
    this.statusCode = statusCode
  }
}
