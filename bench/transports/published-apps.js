// @ts-check
// The main report (npm run bench) ends with the apps suite's published figures:
// a lead section that says where they come from and when they were measured,
// then the apps report's own section per app, chart included. They are read
// here, beside the pure transportReport(result), and only when published.
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { appSections } from '../apps/report.js'
import { failedBanner, fmt, machineLine } from '../lib/format.js'
import { PROJECT_ROOT } from '../lib/paths.js'
import { readResult } from '../lib/results.js'
import { transportReport } from './report.js'

export const PUBLISHED_APPS = 'results/published/apps.json'

/**
 * The apps part of the main report: the lead section and a section per app.
 * @param {any} apps     an apps result
 * @param {string} source  where it was read from, as the text names it
 * @returns {import('../lib/report.js').Section[]}
 */
export function publishedAppsSections (apps, source) {
  const names = [...new Set((apps.runs ?? []).map((/** @type {any} */ r) => r.app))]
  const dataset = apps.config?.dataset
  return [
    {
      title: `Apps shaped like real Watt projects: ${names.join(', ')} (published, not this run)`,
      text: `${failedBanner(apps, 'routes')}These figures are not from this run: they are the apps suite's published result, \`${source}\` (\`npm run bench:apps\`), measured on ${String(apps.startedAt).slice(0, 10)}${apps.finishedAt ? ` (finished ${apps.finishedAt})` : ''}${apps.complete === false ? ', incomplete' : ''}. ${machineLine(apps)}${dataset ? ` Dataset: ${dataset.categories} categories and ${fmt(dataset.products)} products (seed ${dataset.seed}), SQLite.` : ''} The write checks, the targets and every run are in that result's own report (\`npm run bench:apps\` writes \`results/apps-report.{md,html}\`).`
    },
    ...appSections(apps)
  ]
}

/**
 * A report with the published apps part appended, when that file exists;
 * otherwise the report as it was.
 * @param {import('../lib/report.js').Report} report
 * @param {string} [path]  project-relative (or absolute)
 * @returns {import('../lib/report.js').Report}
 */
export function withPublishedApps (report, path = PUBLISHED_APPS) {
  if (!existsSync(resolve(PROJECT_ROOT, path))) return report
  return { ...report, sections: [...report.sections, ...publishedAppsSections(readResult(path), path)] }
}

/**
 * What npm run bench writes as results/report.{md,html}: the transports, then the published apps.
 * @param {any} result  a transports result
 */
export function mainReport (result) {
  return withPublishedApps(transportReport(result))
}
