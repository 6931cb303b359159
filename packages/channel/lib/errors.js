// @ts-check
// One error type for everything that goes wrong on a channel, always naming the
// application, so a caller can map it to 502/504 without parsing messages.

/**
 * @typedef {'unreachable' | 'closed' | 'timeout' | 'aborted' | 'remote' | 'protocol' | 'too-large' | 'bad-payload' | 'unknown-handler'} ChannelErrorCode
 */

export class ChannelError extends Error {
  /**
   * @param {string} application
   * @param {ChannelErrorCode} code
   * @param {string} message
   * @param {{ cause?: unknown }} [options]
   */
  constructor (application, code, message, options) {
    super(`${application}: ${message}`, options)
    this.name = 'ChannelError'
    this.application = application
    this.code = code
  }
}
