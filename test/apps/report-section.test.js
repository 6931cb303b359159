// The main report (npm run bench, results/report.{md,html}) ends with the apps
// suite's published figures: a lead section that names results/published/apps.json
// and says they are not from this run, then the apps report's own section per
// app with its chart; a failed route is FAILED there too, and without the file
// nothing is added. Pure rendering: no runtime is started.
import t from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { appSections, appsReport } from '../../bench/apps/report.js'
import { renderHtml, renderMarkdown } from '../../bench/lib/report.js'
import { PROJECT_ROOT } from '../../bench/lib/paths.js'
import { mainReport, PUBLISHED_APPS, publishedAppsSections, withPublishedApps } from '../../bench/transports/published-apps.js'
import { transportReport } from '../../bench/transports/report.js'
import { FAKE_APPS, fakeAppsResult } from '../helpers/fake-apps-result.js'

const APPS = FAKE_APPS
const fakeApps = fakeAppsResult

const transports = JSON.parse(readFileSync(join(PROJECT_ROOT, 'results/published/transports.json'), 'utf8'))
const own = transportReport(transports)

/**
 * @param {string} dir
 * @param {object} apps
 */
function publish (dir, apps) {
  const file = join(dir, 'apps.json')
  writeFileSync(file, JSON.stringify(apps))
  return file
}

t.test('the main report ends with the published apps: the lead section, then a chart per app', async (t) => {
  const file = publish(t.testdir(), fakeApps())
  const report = withPublishedApps(transportReport(transports), file)
  t.equal(report.title, own.title, 'the same report title')
  t.same(report.sections.slice(0, own.sections.length).map((s) => s.title), own.sections.map((s) => s.title), 'its own sections first, unchanged')

  const added = report.sections.slice(own.sections.length)
  t.equal(added.length, 1 + Object.keys(APPS).length, 'a lead section and one per app')
  const [lead, ...perApp] = added
  t.match(lead.text, `\`${file}\``, 'the lead names the file it was read from')
  t.match(lead.text, /not from this run/)
  t.match(lead.text, /npm run bench:apps/)
  t.match(lead.text, /measured on 2026-01-02/)
  t.match(lead.text, /Test CPU, 2 cores/, 'and the machine it was measured on')
  t.notMatch(lead.text, /FAILED/, 'no failure banner when nothing failed')

  const charts = perApp.flatMap((s) => s.charts ?? [])
  t.equal(charts.length, Object.keys(APPS).length, 'one chart per app')
  Object.keys(APPS).forEach((app, i) => {
    t.match(perApp[i].title, new RegExp(`^${app}: `), `${app}: its section`)
    t.match(/** @type {any} */ (charts[i]).title.text, new RegExp(`^${app}: requests/s`), `${app}: its chart names it`)
  })
  t.same(perApp, appSections(fakeApps()), 'the apps report\'s own sections, not a copy')
  t.same(appsReport(fakeApps()).sections.slice(0, perApp.length), perApp, 'which the apps report opens with')

  const html = renderHtml({ title: report.title, sections: added })
  t.equal((html.match(/<svg/g) ?? []).length, Object.keys(APPS).length, 'drawn: an SVG per app')
  const md = renderMarkdown(report)
  t.match(md, '## Apps shaped like real Watt projects: catalog, orders, storefront (published, not this run)')
  t.match(md, '| catalog/list | mesh-port | 3,150 |')
})

t.test('a failed apps run shows as FAILED, never a number', async (t) => {
  const file = publish(t.testdir(), fakeApps({ failed: ['orders/insert:mesh-port'] }))
  const report = withPublishedApps(own, file)
  const md = renderMarkdown(report)
  t.match(md, '| orders/insert | mesh-port | FAILED | 3 body mismatches |')
  t.match(md, /\*\*This result contains failed runs; failed routes are reported as FAILED, not as numbers\.\*\*/, 'the lead says so')
  const orders = report.sections.find((s) => s.title.startsWith('orders: '))
  const series = /** @type {any} */ (orders?.charts?.[0]).series.find((/** @type {any} */ s) => s.name.startsWith('mesh-port'))
  t.same(series.data, [null], 'and its chart has no bar for it')
})

t.test('without the published file nothing is added, and nothing throws', async (t) => {
  const missing = join(t.testdir(), 'no-such-apps.json')
  t.equal(withPublishedApps(own, missing), own, 'the report as it was')
  t.equal(renderMarkdown(withPublishedApps(own, missing)), renderMarkdown(own))
})

t.test('npm run bench writes the composed report, from results/published/apps.json', async (t) => {
  t.equal(PUBLISHED_APPS, 'results/published/apps.json')
  const published = JSON.parse(readFileSync(join(PROJECT_ROOT, PUBLISHED_APPS), 'utf8'))
  const report = mainReport(transports)
  t.same(report.sections.slice(own.sections.length), publishedAppsSections(published, PUBLISHED_APPS))
  t.match(report.sections[own.sections.length].text, '`results/published/apps.json`')
  const apps = [...new Set(published.runs.map((/** @type {any} */ r) => r.app))]
  t.equal(report.sections.slice(own.sections.length).flatMap((s) => s.charts ?? []).length, apps.length, 'a chart per published app')
  t.match(readFileSync(join(PROJECT_ROOT, 'bench/transports/run.js'), 'utf8'), /report: mainReport,/, 'the main suite reports with it')
})
