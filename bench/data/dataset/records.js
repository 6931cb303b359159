// @ts-check
// The two datasets' records, drawn from the seeded generator. ASCII only, so a
// body's length in characters is its length in bytes, and the key field comes
// second in every record (ids are compared as strings, exactly).

/** @typedef {() => number} Draw */
/** @typedef {Record<string, unknown>} DataRecord */

/**
 * @typedef {object} DatasetKind
 * @property {'speakers' | 'zipcodes'} kind
 * @property {'speakerId' | 'zipcode'} keyField
 * @property {RegExp} idPattern        what the API accepts; anything else answers 400
 * @property {string[]} unknownIds     valid ids no record carries: they answer []
 * @property {(id: number, draw: Draw) => DataRecord} record
 */

export const SPEAKERS = 1000
export const ZIPCODES = 10_000

const FIRST = ['Ada', 'Grace', 'Linus', 'Margaret', 'Ken', 'Barbara', 'Dennis', 'Radia', 'Guido', 'Frances', 'Brendan', 'Sophie', 'Ryan', 'Anders', 'Matteo', 'Joyce']
const LAST = ['Lovelace', 'Hopper', 'Torvalds', 'Hamilton', 'Thompson', 'Liskov', 'Ritchie', 'Perlman', 'Rossum', 'Allen', 'Eich', 'Wilson', 'Dahl', 'Hejlsberg', 'Collina', 'Weizenbaum']
const TOPICS = ['Streams', 'Workers', 'Fastify', 'Undici', 'Watt', 'Diagnostics', 'Security', 'Testing', 'Performance', 'TypeScript', 'Observability', 'HTTP/2']
const ADJECTIVES = ['Practical', 'Advanced', 'Modern', 'Fearless', 'Hidden', 'Scalable', 'Zero-copy', 'Resilient']
const TRACKS = ['backend', 'frontend', 'devops', 'data', 'security']
const CITY_HEADS = ['Spring', 'River', 'Oak', 'Maple', 'Cedar', 'Lake', 'Fair', 'Green', 'Mill', 'Stone', 'North', 'West']
const CITY_TAILS = ['field', 'ton', 'dale', 'view', 'wood', 'port', 'ville', ' Falls', ' Heights', 'burg']
const STATES = ['AL', 'AK', 'AZ', 'AR', 'CA', 'CO', 'CT', 'DE', 'FL', 'GA', 'HI', 'ID', 'IL', 'IN', 'IA', 'KS', 'KY', 'LA', 'ME', 'MD', 'MA', 'MI', 'MN', 'MS', 'MO', 'MT', 'NE', 'NV', 'NH', 'NJ', 'NM', 'NY', 'NC', 'ND', 'OH', 'OK', 'OR', 'PA', 'RI', 'SC', 'SD', 'TN', 'TX', 'UT', 'VT', 'VA', 'WA', 'WV', 'WI', 'WY']
const TIMEZONES = ['America/New_York', 'America/Chicago', 'America/Denver', 'America/Los_Angeles', 'America/Anchorage', 'Pacific/Honolulu']

/** The zipcodes records carry: 10000, 10007, 10014, … (so 10001 is valid but unknown). */
export function zipcodeOf (/** @type {number} */ index) {
  return String(10_000 + 7 * index)
}

/** @type {DatasetKind} */
const speakers = {
  kind: 'speakers',
  keyField: 'speakerId',
  idPattern: /^spk_[1-9][0-9]{0,8}$/,
  unknownIds: ['spk_1001', 'spk_999999'],
  record (id, draw) {
    const n = 1 + (draw() % SPEAKERS)
    const tags = []
    for (let i = 1 + (draw() % 3); i > 0; i--) tags.push(TOPICS[draw() % TOPICS.length].toLowerCase())
    return {
      id,
      speakerId: `spk_${n}`,
      speaker: `${FIRST[n % FIRST.length]} ${LAST[(n * 7 + 3) % LAST.length]}`,
      talk: {
        title: `${ADJECTIVES[draw() % ADJECTIVES.length]} ${TOPICS[draw() % TOPICS.length]} ${draw() % 2 ? 'in production' : 'at scale'}`,
        track: TRACKS[draw() % TRACKS.length],
        room: `R${1 + (draw() % 12)}`,
        minutes: [20, 30, 45, 60][draw() % 4]
      },
      tags,
      rating: (draw() % 51) / 10,
      attendees: draw() % 800
    }
  }
}

/** @type {DatasetKind} */
const zipcodes = {
  kind: 'zipcodes',
  keyField: 'zipcode',
  idPattern: /^[0-9]{5}$/,
  unknownIds: ['00000', '10001', '99999'],
  record (id, draw) {
    return {
      id,
      zipcode: zipcodeOf(draw() % ZIPCODES),
      city: `${CITY_HEADS[draw() % CITY_HEADS.length]}${CITY_TAILS[draw() % CITY_TAILS.length]}`,
      state: STATES[draw() % STATES.length],
      lat: ((draw() % 180_000) - 90_000) / 1000,
      lng: ((draw() % 360_000) - 180_000) / 1000,
      population: draw() % 120_000,
      households: draw() % 50_000,
      medianIncome: 20_000 + (draw() % 180_000),
      timezone: TIMEZONES[draw() % TIMEZONES.length]
    }
  }
}

/** The API's dataset names and what they hold. */
export const DATASETS = /** @type {const} */ ({ small: speakers, large: zipcodes })
/** @typedef {keyof typeof DATASETS} DatasetName */
export const DATASET_NAMES = /** @type {DatasetName[]} */ (Object.keys(DATASETS))

/**
 * Every id records may carry, in a fixed order.
 * @param {DatasetName} name
 */
export function knownIds (name) {
  return name === 'small'
    ? Array.from({ length: SPEAKERS }, (_, i) => `spk_${i + 1}`)
    : Array.from({ length: ZIPCODES }, (_, i) => zipcodeOf(i))
}
